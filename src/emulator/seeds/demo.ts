// The `demo` seed: one realistic workspace ("Acme Co") that touches every feature the sync has to
// mirror — every column type, relation/reference columns, sub-records, threads with a tombstone,
// an archived record, automations in both scopes, a private board, and weeks of activity.

import type { AutomationDoc, ColumnDoc, Json, ModuleDoc, RecordDoc, UserDoc } from '../docs.js';
import { createRecord, deleteRecord, setCell, updateRecord } from '../writes-records.js';
import { deleteAmendment, postAmendment } from '../writes-amendments.js';
import { createCollection, createColumn, type ColumnInput } from '../writes-board.js';
import { addMembership, createModule, createWorkspace, setGrants } from '../writes-structure.js';
import type { World } from '../world.js';
import type { Actor } from '../actor.js';
import { sampleValue } from './values.js';

const DAY = 86_400_000;
const opt = (pairs: Array<[string, string]>) => pairs.map(([label, color]) => ({ label, color }));

interface Board {
  mod: ModuleDoc;
  cols: Record<string, ColumnDoc>;
  colls: string[];
  recs: RecordDoc[];
}

export function seedDemo(w: World, people: UserDoc[]): void {
  const s = w.state;
  const prng = s.prng;
  const [ada, grace] = people as [UserDoc, UserDoc, UserDoc];
  const me: Actor = { user: ada, automation: null, depth: 0, fires: false };
  const her: Actor = { user: grace, automation: null, depth: 0, fires: false };
  const now = s.clock.now().getTime();
  const userIds = [ada._id, grace._id];
  const when = (daysAgo: number): void => s.clock.set(now - daysAgo * DAY);

  // Old enough that a 90-day retention has already dropped its activity rows.
  when(120);
  const ws = createWorkspace(w, me, 'Acme Co', 'rocket');
  ws.description = 'Everything Acme runs on: pipeline, hiring, roadmap.';
  addMembership(w, ws._id, grace, 'member', 'active', ada._id, s.clock.stamp());

  const board = (name: string, icon: string, color: string, colls: string[], cols: Array<[string, ColumnInput['type'], Partial<ColumnInput>?]>, visibility: ModuleDoc['visibility'] = 'workspace'): Board => {
    const mod = createModule(w, me, ws, { name, icon, color, visibility, description: `${name} board`, tags: [{ label: name.split(' ')[0]!, color }] });
    const collIds = colls.map((c, i) => createCollection(w, me, mod, { name: c, position: i, color: ['#3B82F6', '#F59E0B', '#10B981', '#8B5CF6'][i % 4] }) ._id);
    const out: Record<string, ColumnDoc> = {};
    cols.forEach(([cname, type, extra], i) => {
      out[cname] = createColumn(w, me, mod, { name: cname, type, scope: 'record', position: i, ...(extra ?? {}) });
    });
    return { mod, cols: out, colls: collIds, recs: [] };
  };

  when(95);
  const sales = board('Sales Pipeline', '💼', '#2563EB', ['Leads', 'Qualified', 'Proposal', 'Won 🎉'], [
    ['Deal value', 'number'],
    ['Stage', 'status', { statusOptions: opt([['New', '#94A3B8'], ['Contacted', '#3B82F6'], ['Negotiating', '#F59E0B'], ['Won', '#22C55E'], ['Lost', '#EF4444']]) }],
    ['Owner', 'person'],
    ['Close date', 'date'],
    ['Contact email', 'email'],
    ['Phone', 'phone'],
    ['Priority', 'dropdown'],
    ['Website', 'link'],
    ['Confidence', 'rating'],
    ['Active', 'checkbox'],
    ['Engagement', 'timeline'],
    ['Notes', 'text'],
    ['Contract', 'file'],
  ]);
  when(60);
  const hiring = board('Hiring', '🧑‍💼', '#10B981', ['Applied', 'Interview', 'Offer'], [
    ['Role', 'text'],
    ['Status', 'status', { statusOptions: opt([['Screening', '#94A3B8'], ['Interviewing', '#F59E0B'], ['Offer sent', '#3B82F6'], ['Done', '#22C55E'], ['Rejected', '#EF4444']]) }],
    ['Interviewer', 'person'],
    ['Start date', 'date'],
    ['Score', 'rating'],
    ['Email', 'email'],
    ['Remote', 'checkbox'],
  ]);
  when(45);
  const roadmap = board('Product Roadmap', '🗺️', '#8B5CF6', ['Now', 'Next', 'Later'], [
    ['Status', 'status', { statusOptions: opt([['Planned', '#94A3B8'], ['In progress', '#F59E0B'], ['Blocked', '#EF4444'], ['Done', '#22C55E']]) }],
    ['Owner', 'person'],
    ['Timeline', 'timeline'],
    ['Effort', 'number'],
  ]);
  roadmap.cols['Customer'] = createColumn(w, me, roadmap.mod, {
    name: 'Customer',
    type: 'relation',
    scope: 'record',
    position: 4,
    settings: { targetModule: sales.mod._id, displayField: sales.cols['Deal value']!._id },
  });
  roadmap.cols['Customer value'] = createColumn(w, me, roadmap.mod, {
    name: 'Customer value',
    type: 'reference',
    scope: 'record',
    position: 5,
    settings: { via: roadmap.cols['Customer']._id, field: sales.cols['Deal value']!._id, aggregate: 'sum' },
  });
  roadmap.cols['Customer stage'] = createColumn(w, me, roadmap.mod, {
    name: 'Customer stage',
    type: 'reference',
    scope: 'record',
    position: 6,
    settings: { via: roadmap.cols['Customer']._id, field: sales.cols['Stage']!._id, aggregate: 'list' },
  });
  when(40);
  const leadership = board('Leadership', '🔒', '#0F172A', ['Agenda', 'Decided'], [
    ['Topic owner', 'person'],
    ['Decision', 'status', { statusOptions: opt([['Open', '#94A3B8'], ['Agreed', '#22C55E']]) }],
    ['Notes', 'text'],
  ], 'private');

  const names: Array<[Board, string[], number]> = [
    [sales, ['Globex Corporation', 'Initech', 'Umbrella Health', 'Stark Industries', 'Wayne Enterprises', 'Hooli', 'Vandelay Imports', 'Soylent Foods', 'Tyrell Systems', 'O\'Brien & "Sons" <Ltd>', '🚀 Rocket Labs', 'شركة الأمل للتجارة', 'Cyberdyne', 'Massive Dynamic', 'Pied Piper', 'Wonka Industries'], 30],
    [hiring, ['Senior Backend Engineer — M. Chen', 'Product Designer — R. Okafor', 'Data Analyst — S. Iyer', 'Support Lead — J. Müller', 'Frontend Engineer — A. Rossi', 'Recruiter — T. Nakamura', 'SRE — L. García', 'QA Engineer — P. Novak', 'Engineering Manager — D. Cohen', 'Intern — K. Andersen', 'Sales Engineer — F. Haddad', 'Technical Writer — B. Silva'], 25],
    [roadmap, ['SSO with SAML', 'Audit log export', 'Mobile offline mode', 'Bulk record import', 'Board templates', 'Usage-based billing', 'Public API v2', 'Dark mode', 'Slack integration', 'Advanced permissions', 'Data residency (EU)', 'AI summaries'], 20],
    [leadership, ['Q3 budget', 'Office move', 'Hiring freeze?', 'Board meeting prep'], 15],
  ];
  for (const [b, list, daysAgo] of names) {
    when(daysAgo);
    list.forEach((name, i) => {
      const rec = createRecord(w, i % 3 === 2 ? her : me, b.mod, b.colls[i % b.colls.length]!, name, null);
      b.recs.push(rec);
      s.clock.advance(Math.floor(DAY / 4) + prng.int(0, 3_600_000));
    });
  }

  // Cells for most pairs, spread over the last two weeks.
  when(14);
  for (const b of [sales, hiring, roadmap, leadership]) {
    for (const rec of b.recs) {
      for (const col of Object.values(b.cols)) {
        if (col.type === 'reference' || col.type === 'relation' || !prng.chance(0.8)) continue;
        setCell(w, prng.chance(0.7) ? me : her, b.mod, rec, col, sampleValue(prng, col, userIds, now));
      }
      s.clock.advance(prng.int(60_000, 3 * 3_600_000));
    }
  }
  roadmap.recs.slice(0, 8).forEach((rec, i) => {
    const linked = [sales.recs[i]!._id, ...(i % 3 === 0 ? [sales.recs[i + 5]!._id] : [])];
    setCell(w, me, roadmap.mod, rec, roadmap.cols['Customer']!, JSON.stringify(linked));
  });

  // Sub-records with their own grid.
  when(10);
  const subCols = {
    owner: createColumn(w, me, roadmap.mod, { name: 'Owner', type: 'person', scope: 'subrecord', position: 0 }),
    status: createColumn(w, me, roadmap.mod, { name: 'Status', type: 'status', scope: 'subrecord', position: 1, statusOptions: opt([['Not Started', '#94A3B8'], ['Working on it', '#F59E0B'], ['Stuck', '#EF4444'], ['Done', '#22C55E']]) }),
    due: createColumn(w, me, roadmap.mod, { name: 'Due date', type: 'date', scope: 'subrecord', position: 2 }),
  };
  const steps = ['Spec', 'Design review', 'Build', 'QA', 'Docs'];
  roadmap.recs.slice(0, 5).forEach((parent, i) => {
    for (const step of steps.slice(0, 2 + (i % 3))) {
      const sub = createRecord(w, me, roadmap.mod, parent.collectionName, `${step}`, parent);
      setCell(w, me, roadmap.mod, sub, subCols.owner, JSON.stringify([prng.pick(userIds)]));
      setCell(w, me, roadmap.mod, sub, subCols.status, prng.pick(subCols.status.statusOptions).label);
      if (prng.chance(0.6)) setCell(w, me, roadmap.mod, sub, subCols.due, sampleValue(prng, subCols.due, userIds, now));
      if (prng.chance(0.3)) updateRecord(w, me, roadmap.mod, sub, { isCompleted: true });
      s.clock.advance(prng.int(600_000, 7_200_000));
    }
  });

  // Amendment threads, including a tombstone: a deleted parent that still has a live reply.
  when(6);
  const thread = (b: Board, rec: RecordDoc, lines: Array<[Actor, string]>): void => {
    let root = null;
    for (const [who, text] of lines) {
      const a = postAmendment(w, who, b.mod, rec, text, root, who === me ? [grace._id] : []);
      root ??= a;
      s.clock.advance(prng.int(300_000, 5_400_000));
    }
  };
  thread(sales, sales.recs[0]!, [[me, 'Globex wants a 3-year term. @Grace can you check pricing?'], [her, 'Checked: 12% discount is the floor.'], [me, 'Great, sending the proposal today.']]);
  thread(sales, sales.recs[3]!, [[her, 'Procurement asked for our SOC 2 report.'], [me, 'Shared via the data room.']]);
  thread(hiring, hiring.recs[1]!, [[me, 'Strong portfolio — move to onsite?'], [her, 'Yes, scheduling for Thursday.']]);
  thread(roadmap, roadmap.recs[0]!, [[me, 'SAML needs Okta + Azure AD at launch.']]);
  const tomb = postAmendment(w, her, roadmap.mod, roadmap.recs[2]!, 'First draft of offline scope (superseded).', null, []);
  postAmendment(w, me, roadmap.mod, roadmap.recs[2]!, 'Replaced by the doc linked in the spec.', tomb, []);
  s.clock.advance(3_600_000);
  deleteAmendment(w, her, roadmap.mod, tomb);
  thread(sales, sales.recs[10]!, [[me, 'Ünïcødé ✓ — «quotes» and "double quotes" and \'single\' — ‏עברית‎']]);

  // Lifecycle: completions, moves, an archived record, a deleted one.
  when(3);
  updateRecord(w, me, sales.mod, sales.recs[4]!, { collectionName: sales.colls[3]!, isCompleted: true });
  updateRecord(w, me, sales.mod, sales.recs[1]!, { name: 'Initech (renewal)' });
  updateRecord(w, me, sales.mod, sales.recs[8]!, { isArchived: true });
  updateRecord(w, her, hiring.mod, hiring.recs[3]!, { isCompleted: true });
  deleteRecord(w, me, hiring.mod, hiring.recs[11]!);

  // Automations: module scope by column id, workspace scope by column name, one inactive.
  when(2);
  const auto = (mod: ModuleDoc | null, name: string, trigger: { [k: string]: Json }, actions: Json[], extra: Partial<AutomationDoc> = {}): AutomationDoc => {
    const at = s.clock.stamp();
    const doc: AutomationDoc = {
      _id: s.ids.id(),
      workspace: ws._id,
      module: mod ? mod._id : null,
      scope: mod ? 'module' : 'workspace',
      name,
      trigger,
      conditions: [],
      match: 'all',
      actions,
      isActive: true,
      runCount: 0,
      lastRunAt: null,
      lastError: '',
      createdBy: ada._id,
      createdAt: at,
      updatedAt: at,
      isDeleted: false,
      deletedAt: null,
      ...extra,
    };
    s.addAutomation(doc);
    w.activity.log(ws._id, me, at, { action: 'automation_created', message: `created automation "${name}"`, targetName: name, module: mod });
    return doc;
  };
  auto(sales.mod, 'Won deals are completed', { type: 'column_changed_to', column: sales.cols['Stage']!._id, value: 'Won' }, [
    { type: 'set_completed', value: true },
    { type: 'move_to_collection', collectionName: sales.colls[3]! },
  ], { runCount: 1, lastRunAt: new Date(now - 3 * DAY).toISOString() });
  auto(sales.mod, 'New leads start as New', { type: 'record_created' }, [{ type: 'set_column_value', column: sales.cols['Stage']!._id, value: 'New' }], {
    conditions: [{ source: 'record', field: 'collection', op: 'is', value: sales.colls[0]! }],
  });
  auto(null, 'Done means done', { type: 'column_changed_to', columnName: 'Status', value: 'Done' }, [{ type: 'set_completed', value: true }]);
  auto(hiring.mod, 'Thank rejected candidates', { type: 'column_changed_to', column: hiring.cols['Status']!._id, value: 'Rejected' }, [
    { type: 'post_amendment', value: 'Rejection email sent.' },
  ], { isActive: false });
  auto(null, 'Kick off sub-tasks', { type: 'record_created' }, [{ type: 'create_subrecord', value: 'Kick-off' }], {
    isActive: false,
    conditions: [{ source: 'record', field: 'name', op: 'contains', value: 'Epic' }],
  });

  // Module access: the private board stays with its creator; record the (empty) grant set.
  when(1);
  setGrants(w, me, ws, grace, []);
}

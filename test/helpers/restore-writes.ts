// A seeded random writer for restore tests, weighted toward the states a restore finds hard: ties in
// position (collections, columns, records, sub-records), parents moved away from the collection their
// sub-records still name (and that collection deleted), deleted collections and columns of both
// scopes, archived records and sub-records, tombstoned and edited notes, relation and reference
// columns into other modules, several module automations and workspace automations, private modules
// with grants, and cell values the service stores but refuses when sent again (an automation's
// set_column_value, or in observed a POST on an existing pair, skip the value checks).
//
// All writes go to one module ("the target") through the HTTP API; other modules are only read (as
// relation targets). Every write waits for the service's automation runs (emu.idle()), so the
// sequence is the same for the same seed and starting state. `applied` lists it for a reproducer.
//
// A round is two phases, so that the backup can know everything the restore is asked to bring back:
//  - shape(): everything except archiving (the API has no single-record GET, so a record's own fields
//    are known to a backup only from a listing, i.e. while it is not archived);
//  - archive(): archive / delete records and sub-records, replies on archived records — only writes
//    a backup can see by id afterwards, and none that sets off an automation that changes an archived
//    record's own fields (the writer's automations never use the record_archived trigger).
// Take a full backup between the two.

import type { Dialect, RunningEmulator } from '../../src/emulator/types.js';
import { unwrap, type LooseDump } from './harness.js';
import { asTarget, type ServiceTarget } from './service-target.js';

type Doc = Record<string, any>;

const byPosition = (a: Doc, b: Doc): number => (a.position ?? 0) - (b.position ?? 0) || (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0);

/** What the target module holds now (from the emulator's documents), for choosing the next write. */
interface Scene {
  d: LooseDump;
  mod: Doc;
  ws: string;
  colls: Doc[];
  cols: Doc[];
  tops: Doc[];
  archivedTops: Doc[];
  subs: Doc[];
  archivedSubs: Doc[];
  values: Doc[];
  notes: Doc[];
  autos: Doc[];
  wsAutos: Doc[];
  /** Live modules other than the target that may be named (relation targets, create_record). */
  others: Doc[];
}

const VALID_TYPES = ['text', 'number', 'email', 'phone', 'status', 'checkbox', 'rating', 'date', 'person', 'dropdown', 'link', 'timeline', 'relation'];
/** Column types whose values the service checks on create, per dialect, with a value it refuses. */
const REFUSED: Record<Dialect, Record<string, string>> = {
  observed: { email: 'not-an-email', number: 'n/a', phone: 'call me maybe' },
  spec: { email: 'not-an-email', number: 'n/a', phone: 'call me maybe', checkbox: 'maybe', rating: '7.3', person: 'ada' },
};

export class RestoreWriter {
  readonly applied: string[] = [];
  private readonly users: string[];
  private readonly target: ServiceTarget;

  constructor(
    service: RunningEmulator | ServiceTarget,
    private readonly rnd: () => number,
    private readonly dialect: Dialect,
    /** Modules never written to nor named (e.g. deleted ones, restored copies): owned by the caller. */
    private readonly avoid: ReadonlySet<string> = new Set(),
  ) {
    this.target = asTarget(service);
    this.users = this.target.users.map((u) => u.id);
  }

  /** The writes from index `from` on (default: all), to paste into a bug report. */
  reproducer(header: string, from = 0): string {
    const list = this.applied.slice(from);
    return `${header}, ${list.length} writes${from ? ` (after ${from} earlier ones)` : ''}:\n${list.map((w) => `  ${w}`).join('\n')}`;
  }

  note(line: string): void {
    this.applied.push(`# ${line}`);
  }

  private pick<T>(xs: readonly T[]): T | undefined {
    return xs.length ? xs[Math.floor(this.rnd() * xs.length)] : undefined;
  }
  private chance(p: number): boolean {
    return this.rnd() < p;
  }
  private get n(): number {
    return this.applied.length;
  }

  private async call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const res = await this.target.call(method, path, body);
    await this.target.idle();
    this.applied.push(`${method} ${path}${body === undefined ? '' : ` ${JSON.stringify(body).slice(0, 200)}`} -> ${res.status}`);
    return res;
  }

  private async scene(moduleId: string): Promise<Scene> {
    const d = await this.target.dump();
    const mod = d.modules.find((m) => m._id === moduleId)!;
    const colls = d.collections.filter((c) => c.module === moduleId && !c.isDeleted).sort(byPosition);
    const live = new Set(colls.map((c) => c._id));
    const recs = d.records.filter((r) => r.module === moduleId && !r.isDeleted);
    const tops = recs.filter((r) => !r.parentRecord && !r.isArchived && live.has(r.collectionName)).sort(byPosition);
    const archivedTops = recs.filter((r) => !r.parentRecord && r.isArchived && live.has(r.collectionName));
    const parents = new Set([...tops, ...archivedTops].map((r) => r._id));
    const subs = recs.filter((r) => r.parentRecord && parents.has(r.parentRecord) && !r.isArchived);
    const archivedSubs = recs.filter((r) => r.parentRecord && parents.has(r.parentRecord) && r.isArchived);
    const reachable = new Set([...parents, ...subs.map((r) => r._id), ...archivedSubs.map((r) => r._id)]);
    const cols = d.columns.filter((c) => c.module === moduleId && !c.isDeleted);
    return {
      d,
      mod,
      ws: mod.workspace,
      colls,
      cols,
      tops,
      archivedTops,
      subs,
      archivedSubs,
      values: d.values.filter((v) => !v.isDeleted && reachable.has(v.record)),
      notes: d.amendments.filter((a) => !a.isDeleted && reachable.has(a.record)),
      autos: d.automations.filter((a) => !a.isDeleted && a.module === moduleId),
      wsAutos: d.automations.filter((a) => !a.isDeleted && a.module === null && a.workspace === mod.workspace),
      others: d.modules.filter((m) => !m.isDeleted && m._id !== moduleId && m.workspace === mod.workspace && !this.avoid.has(m._id)),
    };
  }

  // ---- choosing / making the target ------------------------------------------------------

  /** A live module not in `avoid`, or (with probability `fresh`, or when none is left) a new one. */
  async chooseModule(workspaceId: string, fresh = 0.25): Promise<string> {
    const d = await this.target.dump();
    const mods = d.modules.filter((m) => !m.isDeleted && m.workspace === workspaceId && !this.avoid.has(m._id));
    const m = this.chance(fresh) ? undefined : this.pick(mods);
    if (m) {
      this.note(`target: module ${m._id} "${m.name}"`);
      return m._id;
    }
    return this.freshModule(workspaceId);
  }

  private async freshModule(ws: string): Promise<string> {
    const n = this.n;
    const m = await this.call('POST', `/modules/${ws}`, { name: `board ${n}`, description: `made by the restore writer at ${n}`, tags: [{ label: `t${n}`, color: '#10B981' }] });
    const id = unwrap(m.body, 'module')?._id as string;
    this.note(`target: new module ${id}`);
    const colls: string[] = [];
    for (const name of ['To do', 'Doing', 'Done']) {
      const c = await this.call('POST', `/collections/${id}`, { name, position: colls.length, color: '#3B82F6' });
      colls.push(unwrap(c.body, 'collection')._id);
    }
    await this.call('POST', `/columns/${id}`, { name: 'Status', type: 'status', position: 0, statusOptions: [{ label: 'Open', color: '#94A3B8' }, { label: 'Done', color: '#22C55E' }] });
    await this.call('POST', `/columns/${id}`, { name: 'Email', type: 'email', position: 1 });
    await this.call('POST', `/columns/${id}`, { name: 'Notes', type: 'text', position: 2 });
    await this.call('POST', `/columns/${id}`, { name: 'Step', type: 'text', scope: 'subrecord', position: 0 });
    const rows: string[] = [];
    for (let i = 0; i < 5; i++) rows.push(unwrap((await this.call('POST', `/records/${colls[i % 2]}`, { name: `row ${this.n}` })).body, 'record')._id);
    for (let i = 0; i < 3; i++) await this.call('POST', `/records/${rows[i % 2]}/sub-records`, { name: `step ${this.n}` });
    return id;
  }

  // ---- phases ------------------------------------------------------------------------------

  /** `count` writes of every kind but archiving. */
  async shape(moduleId: string, count: number): Promise<void> {
    await this.run(moduleId, count, this.shapeKinds());
  }

  /** `count` archiving writes (and replies on archived records). */
  async archive(moduleId: string, count: number): Promise<void> {
    await this.run(moduleId, count, this.archiveKinds());
  }

  /** Switches every active workspace automation off (so none fires on a restore that does not pause them). */
  async switchOffWorkspaceAutomations(workspaceId: string): Promise<void> {
    const d = await this.target.dump();
    for (const a of d.automations.filter((x) => !x.isDeleted && x.module === null && x.workspace === workspaceId && x.isActive)) {
      await this.call('PUT', `/automations/${a._id}`, { isActive: false });
    }
  }

  private async run(moduleId: string, count: number, kinds: Array<[number, string, (s: Scene) => Promise<boolean>]>): Promise<void> {
    const total = kinds.reduce((t, [w]) => t + w, 0);
    for (let done = 0, tries = 0; done < count && tries < count * 20; tries++) {
      let r = this.rnd() * total;
      const kind = kinds.find(([w]) => (r -= w) < 0) ?? kinds[kinds.length - 1]!;
      if (await kind[2](await this.scene(moduleId))) done++;
    }
  }

  // ---- values -------------------------------------------------------------------------------

  private validValue(s: Scene, col: Doc): string | undefined {
    const n = this.n;
    switch (col.type) {
      case 'number':
        return String(Math.floor(this.rnd() * 1000));
      case 'status':
        return this.pick(col.statusOptions as Doc[])?.label ?? 'Done';
      case 'email':
        return `person${n}@example.com`;
      case 'phone':
        return `+1 555 01${String(n % 100).padStart(2, '0')}`;
      case 'checkbox':
        return this.chance(0.5) ? 'true' : 'false';
      case 'rating':
        return String(Math.floor(this.rnd() * 10) / 2);
      case 'date':
        return `2026-0${1 + (n % 9)}-1${n % 10}`;
      case 'person':
        return JSON.stringify(this.chance(0.3) ? this.users.slice(0, 2) : [this.pick(this.users.slice(0, 2))]);
      case 'timeline':
        return JSON.stringify({ startDate: '2026-02-01', endDate: `2026-03-1${n % 10}` });
      case 'relation': {
        const target = col.settings?.targetModule;
        const recs = s.d.records.filter((r) => r.module === target && !r.isDeleted && !r.isArchived && !r.parentRecord);
        const a = this.pick(recs);
        const b = this.pick(recs);
        return JSON.stringify([...new Set([a?._id, b?._id].filter(Boolean))]);
      }
      case 'reference':
        return undefined;
      default:
        return `${col.type} value ${n}`;
    }
  }

  private recordsFor(s: Scene, col: Doc): Doc[] {
    // The spec keeps the grids apart (a sub-record takes sub-record columns); observed does not check.
    if (col.scope === 'subrecord') return s.subs;
    return s.tops;
  }

  private async postValue(rec: Doc, col: Doc, value: string): Promise<{ status: number; body: any }> {
    return this.call('POST', '/record-values', { record: rec._id, column: col._id, collectionName: rec.collectionName, module: rec.module, workspace: rec.workspace, value });
  }

  // ---- automations --------------------------------------------------------------------------

  private moduleAutomation(s: Scene): Doc | undefined {
    const recCols = s.cols.filter((c) => c.scope === 'record');
    const subCols = s.cols.filter((c) => c.scope === 'subrecord');
    const status = this.pick(recCols.filter((c) => c.type === 'status'));
    const text = this.pick(recCols.filter((c) => ['text', 'link', 'dropdown'].includes(c.type)));
    const coll = this.pick(s.colls);
    const other = this.pick(s.others);
    const n = this.n;
    const options: Array<Doc | undefined> = [
      status && { name: `complete on ${n}`, trigger: { type: 'column_changed_to', column: status._id, value: this.pick(status.statusOptions as Doc[])?.label ?? 'Done' }, conditions: [], match: 'all', actions: [{ type: 'set_completed', value: true }] },
      text && { name: `stamp ${n}`, trigger: { type: 'record_created' }, conditions: [{ source: 'record', field: 'is_completed', op: 'is', value: 'false' }], match: 'all', actions: [{ type: 'set_column_value', column: text._id, value: `stamped ${n}` }] },
      coll && { name: `move ${n}`, trigger: { type: 'record_completed' }, conditions: [{ source: 'record', field: 'collection', op: 'is_not', value: coll._id }], match: 'any', actions: [{ type: 'move_to_collection', collectionName: coll._id }] },
      { name: `welcome ${n}`, trigger: { type: 'record_created' }, conditions: [{ source: 'record', field: 'name', op: 'contains', value: '7' }], match: 'all', actions: [{ type: 'post_amendment', value: `welcome note ${n}` }] },
      { name: `kick-off ${n}`, trigger: { type: 'record_created' }, conditions: [{ source: 'record', field: 'name', op: 'starts_with', value: 'Epic' }], match: 'all', actions: [{ type: 'create_subrecord', value: 'Kick-off' }] },
      subCols.length && text ? { name: `parent note ${n}`, trigger: { type: 'subrecord_completed' }, conditions: [], match: 'all', actions: [{ type: 'set_parent_column_value', column: text._id, value: `a step is done ${n}` }] } : undefined,
      other && { name: `echo ${n}`, trigger: { type: 'record_uncompleted' }, conditions: [], match: 'all', actions: [{ type: 'create_record', targetModule: other._id, value: `echo ${n}` }] },
      text && { name: `rename ${n}`, trigger: { type: 'column_changed', column: text._id }, conditions: [{ source: 'column', column: text._id, field: 'value', op: 'is_not_empty', value: '' }], match: 'all', actions: [{ type: 'rename_record', value: '{{name}} ✓' }] },
    ];
    return this.pick(options.filter((o): o is Doc => !!o));
  }

  private workspaceAutomation(): Doc {
    const n = this.n;
    return this.pick([
      { name: `ws done ${n}`, trigger: { type: 'column_changed_to', columnName: 'Status', value: 'Done' }, conditions: [], match: 'all', actions: [{ type: 'set_completed', value: true }] },
      { name: `ws urgent ${n}`, trigger: { type: 'record_created' }, conditions: [{ source: 'record', field: 'name', op: 'starts_with', value: 'Urgent' }], match: 'all', actions: [{ type: 'post_amendment', value: `flagged urgent ${n}` }] },
      { name: `ws notes ${n}`, trigger: { type: 'amendment_posted' }, conditions: [{ source: 'record', field: 'is_completed', op: 'is', value: 'true' }], match: 'all', actions: [{ type: 'set_column_value', columnName: 'Notes', value: `commented when done ${n}` }] },
    ])!;
  }

  // ---- the kinds ----------------------------------------------------------------------------

  private shapeKinds(): Array<[number, string, (s: Scene) => Promise<boolean>]> {
    const observed = this.dialect === 'observed';
    return [
      // structure: collections
      [3, 'add collection', async (s) => {
        const tie = this.pick(s.colls);
        // observed: no position means 0 (a tie with the first); spec: an explicit equal position
        const body: Doc = { name: `group ${this.n}`, color: '#8B5CF6' };
        if (!observed || this.chance(0.3)) if (tie) body.position = tie.position;
        await this.call('POST', `/collections/${s.mod._id}`, body);
        return true;
      }],
      [2, 'collection position tie', async (s) => {
        const [a, b] = [this.pick(s.colls), this.pick(s.colls)];
        if (!a || !b || a === b) return false;
        await this.call('PUT', `/collections/${a._id}`, { position: b.position });
        return true;
      }],
      [1, 'edit collection', async (s) => {
        const c = this.pick(s.colls);
        if (!c) return false;
        const body: Doc = {};
        if (this.chance(0.5)) body.name = `group renamed ${this.n}`;
        if (this.chance(0.5)) body.color = '#EF4444';
        if (this.chance(0.4) || !Object.keys(body).length) body.isCollapsed = !c.isCollapsed;
        await this.call('PUT', `/collections/${c._id}`, body);
        return true;
      }],
      [0.7, 'delete collection', async (s) => {
        if (s.colls.length < 3) return false;
        const c = this.pick(s.colls)!;
        await this.call('DELETE', `/collections/${c._id}`);
        return true;
      }],
      [3, 'move parent away (then delete its old collection)', async (s) => {
        const parents = s.tops.filter((r) => s.subs.some((x) => x.parentRecord === r._id));
        const p = this.pick(parents.length && this.chance(0.8) ? parents : s.tops);
        const to = p && this.pick(s.colls.filter((c) => c._id !== p.collectionName));
        if (!p || !to) return false;
        await this.call('PUT', `/records/${p._id}`, { collectionName: to._id });
        if (s.colls.length > 2 && this.chance(0.4)) await this.call('DELETE', `/collections/${p.collectionName}`);
        return true;
      }],
      // structure: columns of both scopes
      [3, 'add column', async (s) => {
        const scope = this.chance(0.6) ? 'record' : 'subrecord';
        const type = this.pick(VALID_TYPES)!;
        const body: Doc = { name: `${type} ${this.n}`, type };
        if (scope === 'subrecord') body.scope = 'subrecord';
        const same = s.cols.filter((c) => c.scope === scope);
        const tie = this.pick(same);
        if (!observed || this.chance(0.3)) if (tie) body.position = tie.position;
        if (type === 'status') body.statusOptions = [{ label: 'Open', color: '#94A3B8' }, { label: 'Done', color: '#22C55E' }, { label: `Custom ${this.n}`, color: '#123456' }];
        if (type === 'relation') {
          const target = this.chance(0.8) ? this.pick(s.others) : s.mod;
          if (!target) return false;
          const far = this.pick(s.d.columns.filter((c) => c.module === target._id && !c.isDeleted && c.scope === 'record'));
          body.settings = { targetModule: target._id, ...(far ? { displayField: far._id } : {}) };
        }
        if (this.chance(0.3)) body.width = 120 + Math.floor(this.rnd() * 200);
        if (this.chance(0.2)) body.isRequired = true;
        if (this.chance(0.2)) body.isHidden = true;
        await this.call('POST', `/columns/${s.mod._id}`, body);
        return true;
      }],
      [1, 'add reference column', async (s) => {
        const via = this.pick(s.cols.filter((c) => c.type === 'relation' && c.scope === 'record'));
        const far = via && this.pick(s.d.columns.filter((c) => c.module === via.settings?.targetModule && !c.isDeleted && c.type !== 'reference'));
        if (!via || !far) return false;
        await this.call('POST', `/columns/${s.mod._id}`, { name: `ref ${this.n}`, type: 'reference', settings: { via: via._id, field: far._id, aggregate: this.pick(['list', 'count', 'sum']) } });
        return true;
      }],
      [2, 'column position tie', async (s) => {
        const a = this.pick(s.cols);
        const b = a && this.pick(s.cols.filter((c) => c.scope === a.scope && c._id !== a._id));
        if (!a || !b) return false;
        await this.call('PUT', `/columns/${a._id}`, { position: b.position });
        return true;
      }],
      [1.5, 'edit column', async (s) => {
        const c = this.pick(s.cols);
        if (!c) return false;
        const r = this.rnd();
        const body: Doc =
          c.type === 'status' && r < 0.3 ? { statusOptions: [{ label: 'Only', color: '#000000' }, { label: 'Done', color: '#22C55E' }] }
          : r < 0.5 ? { width: 90 + Math.floor(this.rnd() * 300) }
          : r < 0.65 ? { isRequired: !c.isRequired }
          : r < 0.8 ? { isHidden: !c.isHidden }
          : { name: `${c.type} renamed ${this.n}` };
        await this.call('PUT', `/columns/${c._id}`, body);
        return true;
      }],
      [1.5, 'delete column', async (s) => {
        // prefer a column holding values: observed keeps them (column: null), spec deletes them
        const withValues = s.cols.filter((c) => s.values.some((v) => v.column === c._id));
        const c = this.pick(withValues.length && this.chance(0.7) ? withValues : s.cols);
        if (!c || s.cols.length < 3) return false;
        await this.call('DELETE', `/columns/${c._id}`);
        return true;
      }],
      // records and sub-records
      [4, 'add record', async (s) => {
        const c = this.pick(s.colls);
        if (!c) return false;
        const name = this.pick([`row ${this.n}`, `Urgent ${this.n}`, `Epic ${this.n}`, `row ${this.n}7`])!;
        await this.call('POST', `/records/${c._id}`, { name });
        return true;
      }],
      [6, 'add sub-record', async (s) => {
        const p = this.pick(s.tops);
        if (!p) return false;
        await this.call('POST', `/records/${p._id}/sub-records`, { name: `sub ${this.n}` });
        return true;
      }],
      [3, 'record / sub-record position tie', async (s) => {
        const sub = this.chance(0.4);
        const a = this.pick(sub ? s.subs : s.tops);
        const siblings = a ? (sub ? s.subs.filter((x) => x.parentRecord === a.parentRecord) : s.tops.filter((x) => x.collectionName === a.collectionName)) : [];
        const b = this.pick(siblings.filter((x) => x._id !== a?._id));
        if (!a || !b) return false;
        await this.call('PUT', `/records/${a._id}`, { position: b.position });
        return true;
      }],
      [1.5, 'rename / complete', async (s) => {
        const r = this.pick(this.chance(0.5) ? s.subs : s.tops) ?? this.pick(s.tops);
        if (!r) return false;
        await this.call('PUT', `/records/${r._id}`, this.chance(0.5) ? { name: `renamed ${this.n}` } : { isCompleted: !r.isCompleted });
        return true;
      }],
      // cells
      [5, 'set a cell', async (s) => {
        const col = this.pick(s.cols.filter((c) => c.type !== 'reference'));
        const rec = col && this.pick(this.recordsFor(s, col));
        const value = col && rec && this.validValue(s, col);
        if (!col || !rec || value === undefined) return false;
        const existing = s.values.find((v) => v.record === rec._id && v.column === col._id);
        if (existing) await this.call('PUT', `/record-values/${existing._id}`, { value });
        else await this.postValue(rec, col, value);
        return true;
      }],
      [1, 'clear a cell', async (s) => {
        const v = this.pick(s.values.filter((x) => s.cols.some((c) => c._id === x.column)));
        if (!v) return false;
        await this.call('DELETE', `/record-values/${v._id}`);
        return true;
      }],
      [2, 'a value the service refuses when sent again', async (s) => {
        const refused = REFUSED[this.dialect];
        if (observed && this.chance(0.6)) {
          // observed: POST on a pair that has a value updates it without any check
          const col = this.pick(s.cols.filter((c) => c.type in refused && c.scope === 'record'));
          const rec = col && this.pick(s.tops);
          if (!col || !rec) return false;
          if (!s.values.some((v) => v.record === rec._id && v.column === col._id)) await this.postValue(rec, col, this.validValue(s, col)!);
          await this.postValue(rec, col, refused[col.type]!);
          return true;
        }
        // both: an automation's set_column_value is not checked either
        const scope = this.chance(0.75) ? 'record' : 'subrecord';
        let col = this.pick(s.cols.filter((c) => c.type in refused && c.scope === scope));
        if (!col) {
          const made = await this.call('POST', `/columns/${s.mod._id}`, { name: `email ${this.n}`, type: 'email', ...(scope === 'subrecord' ? { scope } : {}) });
          col = unwrap(made.body, 'column') as Doc;
        }
        await this.target.advance(60_000);
        await this.call('POST', `/automations/${s.mod._id}`, {
          name: `stamp a bad ${col.type} ${this.n}`,
          trigger: { type: scope === 'record' ? 'record_created' : 'subrecord_created' },
          conditions: [],
          match: 'all',
          actions: [{ type: 'set_column_value', column: col._id, value: refused[col.type] }],
          isActive: true,
        });
        const coll = this.pick(s.colls);
        const parent = this.pick(s.tops);
        if (scope === 'record' && coll) await this.call('POST', `/records/${coll._id}`, { name: `stamped ${this.n}` });
        else if (scope === 'subrecord' && parent) await this.call('POST', `/records/${parent._id}/sub-records`, { name: `stamped sub ${this.n}` });
        return true;
      }],
      // amendments
      [3, 'note', async (s) => {
        const r = this.pick(this.chance(0.8) ? s.tops : s.subs) ?? this.pick(s.tops);
        if (!r) return false;
        await this.call('POST', `/amendments/${r._id}`, { message: `note ${this.n}` });
        return true;
      }],
      [3, 'reply', async (s) => {
        const root = this.pick(s.notes.filter((a) => !a.parentComment));
        if (!root) return false;
        await this.call('POST', `/amendments/${root.record}`, { message: `reply ${this.n}`, parentComment: root._id });
        return true;
      }],
      [1.5, 'edit own note', async (s) => {
        const a = this.pick(s.notes.filter((x) => x.user === this.users[0]));
        if (!a) return false;
        await this.call('PUT', `/amendments/${a._id}`, { message: `edited ${this.n}` });
        return true;
      }],
      [2, 'delete a note (tombstone when it has replies)', async (s) => {
        const withReplies = s.notes.filter((x) => !x.parentComment && s.notes.some((y) => y.parentComment === x._id));
        const a = this.pick(withReplies.length && this.chance(0.7) ? withReplies : s.notes);
        if (!a) return false;
        await this.call('DELETE', `/amendments/${a._id}`);
        return true;
      }],
      // automations
      [2, 'module automation', async (s) => {
        const automation = this.moduleAutomation(s);
        if (!automation) return false;
        await this.target.advance(60_000);
        await this.call('POST', `/automations/${s.mod._id}`, { ...automation, isActive: this.chance(0.75) });
        return true;
      }],
      [1, 'toggle / edit a module automation', async (s) => {
        const a = this.pick(s.autos);
        if (!a) return false;
        if (this.chance(0.6)) await this.call('PUT', `/automations/${a._id}`, { isActive: !a.isActive });
        else await this.call('PUT', `/automations/${a._id}`, { name: `${a.name} (edited)`, trigger: a.trigger, conditions: a.conditions, match: a.match, actions: a.actions, isActive: a.isActive });
        return true;
      }],
      [1, 'workspace automation', async (s) => {
        const a = this.pick(s.wsAutos);
        if (a && this.chance(0.5)) {
          await this.call('PUT', `/automations/${a._id}`, { isActive: !a.isActive });
          return true;
        }
        await this.target.advance(60_000);
        await this.call('POST', `/automations/workspace/${s.ws}`, { ...this.workspaceAutomation(), isActive: this.chance(0.7) });
        return true;
      }],
      // the module itself and who may open it
      [1, 'private module + grant', async (s) => {
        const grace = this.users[1];
        if (!grace) return false; // a live run with one key has nobody to grant
        const access = await this.target.call('GET', `/module-access/${s.ws}/${grace}`);
        const granted: string[] = (access.body?.modules ?? []).filter((m: Doc) => m.granted).map((m: Doc) => m._id);
        if (s.mod.visibility !== 'private') await this.call('PUT', `/modules/${s.mod._id}`, { visibility: 'private' });
        const revoke = granted.includes(s.mod._id) && this.chance(0.3);
        await this.call('PUT', `/module-access/${s.ws}/${grace}`, { moduleIds: revoke ? granted.filter((x) => x !== s.mod._id) : [...new Set([...granted, s.mod._id])] });
        return true;
      }],
      [1, 'edit module', async (s) => {
        const r = this.rnd();
        const body: Doc =
          r < 0.25 ? { name: `${String(s.mod.name).slice(0, 30)} ${this.n}` }
          : r < 0.45 ? { description: `described at ${this.n}` }
          : r < 0.6 ? { icon: '🧪', color: '#F97316' }
          : r < 0.8 ? { tags: [{ label: `tag ${this.n}`, color: '#0EA5E9' }, { label: 'second', color: '#84CC16' }] }
          : { visibility: this.pick(['workspace', 'public', 'private']) };
        await this.call('PUT', `/modules/${s.mod._id}`, body);
        return true;
      }],
    ];
  }

  private archiveKinds(): Array<[number, string, (s: Scene) => Promise<boolean>]> {
    const observed = this.dialect === 'observed';
    return [
      [3, 'archive a record', async (s) => {
        const parents = s.tops.filter((r) => s.subs.some((x) => x.parentRecord === r._id));
        const r = this.pick(parents.length && this.chance(0.5) ? parents : s.tops);
        if (!r || s.tops.length < 2) return false;
        // observed: DELETE archives the record and its sub-records; PUT archives the record only
        if (observed && this.chance(0.5)) await this.call('DELETE', `/records/${r._id}`);
        else await this.call('PUT', `/records/${r._id}`, { isArchived: true });
        return true;
      }],
      [2.5, 'archive a sub-record', async (s) => {
        const x = this.pick(s.subs);
        if (!x) return false;
        await this.call('PUT', `/records/${x._id}`, { isArchived: true });
        return true;
      }],
      [1, 'delete a record (spec: gone, its sub-records archived)', async (s) => {
        const r = this.pick(s.tops);
        if (!r || observed || s.tops.length < 2) return false;
        await this.call('DELETE', `/records/${r._id}`);
        return true;
      }],
      [1.5, 'reply on an archived record', async (s) => {
        const archived = new Set([...s.archivedTops, ...s.archivedSubs].map((r) => r._id));
        const root = this.pick(s.notes.filter((a) => !a.parentComment && archived.has(a.record)));
        if (!root) return false;
        // replies set no automation off (root notes do: amendment_posted)
        await this.call('POST', `/amendments/${root.record}`, { message: `reply while archived ${this.n}`, parentComment: root._id });
        return true;
      }],
      [1, 'cell on an archived record (observed: POST on an existing pair, no automations)', async (s) => {
        if (!observed) return false;
        const archived = new Set([...s.archivedTops, ...s.archivedSubs].map((r) => r._id));
        const v = this.pick(s.values.filter((x) => archived.has(x.record)));
        const col = v && s.cols.find((c) => c._id === v.column);
        const rec = v && s.d.records.find((r) => r._id === v.record);
        const value = col && this.validValue(s, col);
        if (!v || !col || !rec || value === undefined) return false;
        await this.postValue(rec, col, value);
        return true;
      }],
      [0.5, 'un-archive a record', async (s) => {
        const r = this.pick(s.archivedTops);
        if (!r) return false;
        await this.call('PUT', `/records/${r._id}`, { isArchived: false });
        return true;
      }],
    ];
  }
}

// The drill's verdict, pure: a workspace as the snapshot holds it vs the same workspace restored and
// read back, modulo ids (the restore journal's id map first, shape for the rest). What the restore
// said beforehand it cannot bring back is "not restorable, and why"; anything else unequal fails.

import type { Automation, Member, Module, Workspace } from '../domain/entities.js';
import { canon, type DiffFieldChange as FieldChange, diffModuleTrees, type EntityDiff, mapUsers, type ModuleTree, type NotRestored, translateIds } from '../restore/index.js';
import { memberName } from '../domain/member-name.js';

export const DRILL_ENTITIES = ['workspace', 'member', 'module', 'collection', 'column', 'record', 'subrecord', 'cell', 'amendment', 'automation', 'grant'] as const;
export type DrillEntity = (typeof DRILL_ENTITIES)[number];

/** One workspace: the snapshot's side or the read-back side. Modules are read one at a time, so
 * a large workspace is never held whole. */
export interface DrillSide {
  workspace: Workspace;
  members: Member[];
  workspaceAutomations: Automation[];
  modules: Module[];
  tree(moduleId: string): ModuleTree | null;
}

export interface CompareInput {
  source: DrillSide;
  /** null when the restore made no workspace at all. */
  restored: DrillSide | null;
  /** Old id → new id, from the restore journal: whole, or looked up for the ids a module names
   * (a large workspace's map is not held whole). */
  idMap: ReadonlyMap<string, string> | IdSource;
  /** Old user id → user id on the scratch service. */
  userMap: ReadonlyMap<string, string>;
  /** What the restore's plan said it cannot bring back (limits of the service, with reasons). */
  planned: NotRestored[];
  /** Writes the service refused during the restore (or not sent because they needed one). */
  refused: NotRestored[];
  /** config.restore.attribution: the line restored amendments carry, stripped before comparing. */
  attribution: string;
  /** The restored workspace was created under another name (a staging service): names not compared. */
  renamed?: boolean;
}

/** The restore journal's id map, asked for the ids one part of the workspace names. */
export interface IdSource {
  lookup(oldIds: ReadonlySet<string>): Map<string, string>;
}

/** Every string a value holds, JSON text inside strings included (relation cells hold id lists). */
export function stringsOf(v: unknown, out: Set<string> = new Set()): Set<string> {
  if (typeof v === 'string') {
    out.add(v);
    if (v.startsWith('[') || v.startsWith('{')) {
      try {
        stringsOf(JSON.parse(v) as unknown, out);
      } catch {
        // not JSON: the string itself is all
      }
    }
  } else if (Array.isArray(v)) {
    for (const x of v) stringsOf(x, out);
  } else if (v && typeof v === 'object' && !(v instanceof Map)) {
    for (const x of Object.values(v)) stringsOf(x, out);
  }
  return out;
}

export interface DrillItem {
  entity: DrillEntity;
  /** The snapshot's id (the read-back id for something that should not be there). */
  id: string;
  label: string;
  /** In the module (name), when inside one. */
  module?: string;
  reason: string;
  fields?: FieldChange[];
}

export interface EntityTally {
  compared: number;
  equal: number;
  differing: number;
  notRestorable: number;
}

export interface WorkspaceComparison {
  workspaceId: string;
  name: string;
  entities: Record<DrillEntity, EntityTally>;
  differing: DrillItem[];
  notRestorable: DrillItem[];
  ok: boolean;
}

/** Fields no restore can carry over (the service stamps its own): never compared, said once. */
export const NOT_RESTORABLE_FIELDS = [
  'ids: every object gets a new one (compared modulo ids, through the restore journal)',
  'creation and update times: the service stamps the time of the restore',
  'amendment authors and times: the restoring user posts them (the attribution line keeps the originals)',
  'automation run counts, last runs and last errors: history of the old automations, not settings',
  'archived records: a fresh read cannot list them, so they are restored but not read back',
];

const ARCHIVED_UNLISTED = 'archived: restored, but a fresh read of the service cannot list archived records to compare';

function emptyTally(): Record<DrillEntity, EntityTally> {
  return Object.fromEntries(DRILL_ENTITIES.map((e) => [e, { compared: 0, equal: 0, differing: 0, notRestorable: 0 }])) as Record<DrillEntity, EntityTally>;
}

function asDrillEntity(entity: string, isSub: boolean): DrillEntity {
  if (entity === 'workspaceAutomation') return 'automation';
  if (entity === 'record' && isSub) return 'subrecord';
  return (DRILL_ENTITIES as readonly string[]).includes(entity) ? (entity as DrillEntity) : 'module';
}

function describe(e: EntityDiff): string {
  if (e.change === 'removed') return 'missing from the restored workspace';
  if (e.change === 'added') return 'in the restored workspace but not in the snapshot';
  return `differs: ${(e.fields ?? []).map((f) => f.field).join(', ')}`;
}


/** Compares one workspace; `ok` when nothing restorable differs. */
export function compareWorkspace(input: CompareInput): WorkspaceComparison {
  const { source, restored } = input;
  const tally = emptyTally();
  const differing: DrillItem[] = [];
  const notRestorable: DrillItem[] = [];
  const planned = new Map(input.planned.map((n) => [n.id, n]));
  // one entry per object: the service's own refusal rather than a step that could not follow it
  const refused = new Map<string, NotRestored>();
  for (const n of input.refused) if (!refused.has(n.id) || (refused.get(n.id)!.status === undefined && n.status !== undefined)) refused.set(n.id, n);
  const mapUser = (id: string): string => input.userMap.get(id) ?? id;
  // the id map for what a part names (every string in it): users mapped too
  const idsFor = (v: unknown): Map<string, string> => {
    const names = stringsOf(v);
    const src = input.idMap;
    const map = 'lookup' in src ? (src as IdSource).lookup(names) : new Map([...names].flatMap((id) => ((src as ReadonlyMap<string, string>).has(id) ? [[id, (src as ReadonlyMap<string, string>).get(id)!] as const] : [])));
    for (const [k, n] of input.userMap) map.set(k, n);
    return map;
  };
  const idMap = idsFor([source.workspace.id, source.workspaceAutomations, source.modules.map((m) => m.id)]);

  const members = source.members.filter((m) => m.status !== 'removed');
  const count = (e: DrillEntity, n: number): void => void (tally[e].compared += n);
  count('workspace', 1);
  count('member', members.length);
  count('automation', source.workspaceAutomations.length);
  // sub-record ids of the module being compared (diff entries call both kinds 'record')
  let subIds = new Set<string>();
  const countTree = (t: ModuleTree): void => {
    count('module', 1);
    count('collection', t.collections.length);
    count('column', t.columns.length);
    count('record', t.records.filter((r) => r.parentRecordId === null).length);
    count('subrecord', t.records.filter((r) => r.parentRecordId !== null).length);
    count('cell', t.cells.length);
    count('amendment', t.amendments.length);
    count('automation', t.automations.length);
    count('grant', t.grants?.length ?? 0);
  };
  const sourceTree = (m: Module): ModuleTree | null => {
    const t = source.tree(m.id);
    return t && mapUsers({ ...t, grants: t.grants?.map(mapUser) ?? null }, input.userMap);
  };

  const fail = (item: DrillItem): void => {
    differing.push(item);
    tally[item.entity].differing++;
  };
  const excuse = (item: DrillItem): void => {
    notRestorable.push(item);
    tally[item.entity].notRestorable++;
  };
  const seen = new Set<string>();
  // the service refused these writes during the restore: failures, named, whatever the read-back says
  for (const n of refused.values()) {
    seen.add(n.id);
    fail({ entity: asDrillEntity(n.entity, false), id: n.id, label: n.label, reason: `${n.reason}${n.status !== undefined ? ` (HTTP ${n.status})` : ''}${n.value !== undefined ? `; value ${JSON.stringify(n.value)}` : ''}` });
  }
  for (const n of planned.values()) {
    seen.add(n.id);
    excuse({ entity: asDrillEntity(n.entity, false), id: n.id, label: n.label, reason: n.reason });
  }
  const classify = (e: EntityDiff, module?: string): void => {
    if (e.change !== 'added' && seen.has(e.id)) return;
    seen.add(e.id);
    const entity = asDrillEntity(e.entity, subIds.has(e.id));
    fail({ entity, id: e.id, label: e.label, reason: describe(e), ...(module ? { module } : {}), ...(e.fields?.length ? { fields: e.fields } : {}) });
  };

  if (!restored) {
    for (const m of source.modules) {
      const t = sourceTree(m);
      if (t) countTree(t);
    }
    fail({ entity: 'workspace', id: source.workspace.id, label: source.workspace.name, reason: 'not restored' });
    return finish(input, tally, differing, notRestorable);
  }

  const wsKeys = ['name', 'description', 'icon', 'banner'] as const;
  const wsFields: FieldChange[] = [];
  for (const k of wsKeys) {
    if (k === 'name' && input.renamed) continue;
    const [a, b] = [source.workspace[k] ?? '', restored.workspace[k] ?? ''];
    if (a !== b) wsFields.push({ field: k, before: a, after: b });
  }
  if (wsFields.length) classify({ entity: 'workspace' as EntityDiff['entity'], change: 'changed', id: source.workspace.id, label: source.workspace.name, fields: wsFields });

  const restoredMembers = new Map(restored.members.filter((m) => m.status !== 'removed').map((m) => [m.userId, m]));
  for (const m of members) {
    const got = restoredMembers.get(mapUser(m.userId));
    restoredMembers.delete(mapUser(m.userId));
    if (!got) classify({ entity: 'member', change: 'removed', id: m.userId, label: memberName(m) });
    else if (got.role !== m.role) classify({ entity: 'member', change: 'changed', id: m.userId, label: memberName(m), fields: [{ field: 'role', before: m.role, after: got.role }] });
  }
  for (const m of restoredMembers.values()) {
    // the user who ran the restore owns the workspace it created, member of the snapshot or not
    if (m.role === 'owner') excuse({ entity: 'member', id: m.userId, label: memberName(m), reason: 'the restoring user owns the workspace it created' });
    else classify({ entity: 'member', change: 'added', id: m.userId, label: memberName(m) });
  }

  const automation = (a: Automation): Record<string, unknown> => ({ name: a.name, trigger: a.trigger, conditions: a.conditions, match: a.match, actions: a.actions, isActive: a.isActive });
  const restoredAutomations = new Map(restored.workspaceAutomations.map((a) => [a.id, a]));
  for (const a of source.workspaceAutomations) {
    const mine = restoredAutomations.get(idMap.get(a.id) ?? '') ?? [...restoredAutomations.values()].find((b) => b.name === a.name);
    if (!mine) {
      classify({ entity: 'workspaceAutomation', change: 'removed', id: a.id, label: a.name });
      continue;
    }
    restoredAutomations.delete(mine.id);
    const [x, y] = [translateIds(mapUsers(automation(a), input.userMap), idMap) as Record<string, unknown>, automation(mine)];
    const fields = Object.keys(x).filter((k) => canon(x[k]) !== canon(y[k])).map((k) => ({ field: k, before: x[k], after: y[k] }));
    if (fields.length) classify({ entity: 'workspaceAutomation', change: 'changed', id: a.id, label: a.name, fields });
  }
  for (const b of restoredAutomations.values()) classify({ entity: 'workspaceAutomation', change: 'added', id: b.id, label: b.name });

  const restoredModules = new Map(restored.modules.map((m) => [m.id, m]));
  for (const m of source.modules) {
    const tree = sourceTree(m);
    if (!tree) continue;
    countTree(tree);
    subIds = new Set(tree.records.filter((r) => r.parentRecordId !== null).map((r) => r.id));
    const match = restoredModules.get(idMap.get(m.id) ?? '') ?? [...restoredModules.values()].find((x) => x.name === m.name);
    const mine = match ? restored.tree(match.id) : null;
    if (!match || !mine) {
      classify({ entity: 'module', change: 'removed', id: tree.module.id, label: tree.module.name });
      continue;
    }
    restoredModules.delete(match.id);
    const moduleIds = idsFor(tree);
    const hidden = archivedUnlisted(tree, mine, moduleIds);
    for (const r of tree.records) {
      if (hidden.has(r.id) && !seen.has(r.id)) {
        seen.add(r.id);
        excuse({ entity: r.parentRecordId ? 'subrecord' : 'record', id: r.id, label: r.name, module: tree.module.name, reason: ARCHIVED_UNLISTED });
      }
    }
    const visible: ModuleTree = { ...tree, records: tree.records.filter((r) => !hidden.has(r.id)), cells: tree.cells.filter((c) => !hidden.has(c.recordId)), amendments: tree.amendments.filter((x) => !hidden.has(x.recordId)) };
    const d = diffModuleTrees(visible, mine, { matchBy: 'shape', idMap: moduleIds, acrossRestore: true, attribution: input.attribution });
    for (const e of d.entries) classify(e, tree.module.name);
    // what lay under a hidden record was not read back either: counted as not restorable with it
    for (const c of tree.cells) if (hidden.has(c.recordId)) tally.cell.notRestorable++;
    for (const x of tree.amendments) if (hidden.has(x.recordId)) tally.amendment.notRestorable++;
  }
  for (const m of restoredModules.values()) classify({ entity: 'module', change: 'added', id: m.id, label: m.name });
  return finish(input, tally, differing, notRestorable);
}

/** The attribution line as a whole-paragraph pattern ({author} and {createdAt} match anything). */
/** Records archived in the snapshot (and what hangs under them) that the read-back cannot list. */
function archivedUnlisted(a: ModuleTree, b: ModuleTree, idMap: ReadonlyMap<string, string>): Set<string> {
  const listed = new Set(b.records.map((r) => r.id));
  const hidden = new Set<string>();
  const parentsFirst = [...a.records].sort((x, y) => Number(x.parentRecordId !== null) - Number(y.parentRecordId !== null));
  for (const r of parentsFirst) {
    if (listed.has(idMap.get(r.id) ?? '')) continue;
    if (r.isArchived || (r.parentRecordId !== null && hidden.has(r.parentRecordId))) hidden.add(r.id);
  }
  return hidden;
}

function finish(input: CompareInput, tally: Record<DrillEntity, EntityTally>, differing: DrillItem[], notRestorable: DrillItem[]): WorkspaceComparison {
  for (const t of Object.values(tally)) t.equal = Math.max(0, t.compared - t.differing - t.notRestorable);
  return { workspaceId: input.source.workspace.id, name: input.source.workspace.name, entities: tally, differing, notRestorable, ok: differing.length === 0 };
}

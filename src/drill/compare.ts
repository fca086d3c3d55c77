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
  /** Modules compared as they were read back (by the snapshot's module id): not read again. */
  read?: ReadonlyMap<string, ModuleOutcome>;
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


/** What comparing one module found, before it joins the workspace's verdict. */
export interface ModuleOutcome {
  /** The snapshot's module id and the restored one it was compared with. */
  sourceModuleId: string;
  restoredModuleId: string;
  /** Objects of the snapshot's module, per kind. */
  counts: Partial<Record<DrillEntity, number>>;
  /** Records archived in the snapshot that the read-back cannot list (with their cells and amendments). */
  hidden: DrillItem[];
  hiddenCells: number;
  hiddenAmendments: number;
  /** Differences, each with its kind resolved (sub-records told from records). */
  entries: Array<{ entity: DrillEntity; diff: EntityDiff }>;
  moduleName: string;
}

/** What comparing a module needs of the input: the ids it names mapped, users mapped, the attribution. */
export type ModuleCompareInput = Pick<CompareInput, 'idMap' | 'userMap' | 'attribution'>;

/** The id map for what a part names (every string in it): users mapped too. */
function idsFor(input: ModuleCompareInput, v: unknown): Map<string, string> {
  const names = stringsOf(v);
  const src = input.idMap;
  const map = 'lookup' in src ? (src as IdSource).lookup(names) : new Map([...names].flatMap((id) => ((src as ReadonlyMap<string, string>).has(id) ? [[id, (src as ReadonlyMap<string, string>).get(id)!] as const] : [])));
  for (const [k, n] of input.userMap) map.set(k, n);
  return map;
}

/** The snapshot's module tree with its users mapped to the restored side's. */
export function sourceTreeOf(input: Pick<CompareInput, 'userMap'>, source: DrillSide, moduleId: string): ModuleTree | null {
  const t = source.tree(moduleId);
  return t && mapUsers({ ...t, grants: t.grants?.map((id) => input.userMap.get(id) ?? id) ?? null }, input.userMap);
}

function treeCounts(t: ModuleTree): Partial<Record<DrillEntity, number>> {
  return {
    module: 1,
    collection: t.collections.length,
    column: t.columns.length,
    record: t.records.filter((r) => r.parentRecordId === null).length,
    subrecord: t.records.filter((r) => r.parentRecordId !== null).length,
    cell: t.cells.length,
    amendment: t.amendments.length,
    automation: t.automations.length,
    grant: t.grants?.length ?? 0,
  };
}

/** One module: the snapshot's tree (users mapped) against the restored module read back. */
export function compareModule(input: ModuleCompareInput, tree: ModuleTree, mine: ModuleTree): ModuleOutcome {
  const subIds = new Set(tree.records.filter((r) => r.parentRecordId !== null).map((r) => r.id));
  const moduleIds = idsFor(input, tree);
  const hiddenIds = archivedUnlisted(tree, mine, moduleIds);
  const hidden: DrillItem[] = tree.records
    .filter((r) => hiddenIds.has(r.id))
    .map((r) => ({ entity: r.parentRecordId ? 'subrecord' : 'record', id: r.id, label: r.name, module: tree.module.name, reason: ARCHIVED_UNLISTED }));
  const visible: ModuleTree = { ...tree, records: tree.records.filter((r) => !hiddenIds.has(r.id)), cells: tree.cells.filter((c) => !hiddenIds.has(c.recordId)), amendments: tree.amendments.filter((x) => !hiddenIds.has(x.recordId)) };
  const d = diffModuleTrees(visible, mine, { matchBy: 'shape', idMap: moduleIds, acrossRestore: true, attribution: input.attribution });
  return {
    sourceModuleId: tree.module.id,
    restoredModuleId: mine.module.id,
    counts: treeCounts(tree),
    hidden,
    // what lay under a hidden record was not read back either: counted as not restorable with it
    hiddenCells: tree.cells.filter((c) => hiddenIds.has(c.recordId)).length,
    hiddenAmendments: tree.amendments.filter((x) => hiddenIds.has(x.recordId)).length,
    entries: d.entries.map((e) => ({ entity: asDrillEntity(e.entity, subIds.has(e.id)), diff: e })),
    moduleName: tree.module.name,
  };
}

/** The verdict of one workspace as it is built: tallies, items, and the ids already named. */
interface Verdict {
  input: CompareInput;
  tally: Record<DrillEntity, EntityTally>;
  differing: DrillItem[];
  notRestorable: DrillItem[];
  seen: Set<string>;
}

function fail(v: Verdict, item: DrillItem): void {
  v.differing.push(item);
  v.tally[item.entity].differing++;
}

function excuse(v: Verdict, item: DrillItem): void {
  v.notRestorable.push(item);
  v.tally[item.entity].notRestorable++;
}

function classify(v: Verdict, e: EntityDiff, entity: DrillEntity = asDrillEntity(e.entity, false), module?: string): void {
  if (e.change !== 'added' && v.seen.has(e.id)) return;
  v.seen.add(e.id);
  fail(v, { entity, id: e.id, label: e.label, reason: describe(e), ...(module ? { module } : {}), ...(e.fields?.length ? { fields: e.fields } : {}) });
}

function count(v: Verdict, counts: Partial<Record<DrillEntity, number>>): void {
  for (const [e, n] of Object.entries(counts)) v.tally[e as DrillEntity].compared += n;
}

/** A new verdict: the service's refusals during the restore fail, named, whatever the read-back
 * says; what the plan said it cannot bring back is excused. */
function startVerdict(input: CompareInput): Verdict {
  const v: Verdict = { input, tally: emptyTally(), differing: [], notRestorable: [], seen: new Set() };
  // one entry per object: the service's own refusal rather than a step that could not follow it
  const refused = new Map<string, NotRestored>();
  for (const n of input.refused) if (!refused.has(n.id) || (refused.get(n.id)!.status === undefined && n.status !== undefined)) refused.set(n.id, n);
  const planned = new Map(input.planned.map((n) => [n.id, n]));
  for (const n of refused.values()) {
    v.seen.add(n.id);
    fail(v, { entity: asDrillEntity(n.entity, false), id: n.id, label: n.label, reason: `${n.reason}${n.status !== undefined ? ` (HTTP ${n.status})` : ''}${n.value !== undefined ? `; value ${JSON.stringify(n.value)}` : ''}` });
  }
  for (const n of planned.values()) {
    v.seen.add(n.id);
    excuse(v, { entity: asDrillEntity(n.entity, false), id: n.id, label: n.label, reason: n.reason });
  }
  return v;
}

/** A compared module joins the verdict. */
function addModule(v: Verdict, o: ModuleOutcome): void {
  count(v, o.counts);
  for (const item of o.hidden) {
    if (v.seen.has(item.id)) continue;
    v.seen.add(item.id);
    excuse(v, item);
  }
  for (const { entity, diff } of o.entries) classify(v, diff, entity, o.moduleName);
  v.tally.cell.notRestorable += o.hiddenCells;
  v.tally.amendment.notRestorable += o.hiddenAmendments;
}

/** The workspace's own fields, its members and its own automations. */
function compareTop(v: Verdict, source: DrillSide, restored: DrillSide, idMap: ReadonlyMap<string, string>): void {
  const { input } = v;
  const mapUser = (id: string): string => input.userMap.get(id) ?? id;
  const wsFields: FieldChange[] = [];
  for (const k of ['name', 'description', 'icon', 'banner'] as const) {
    if (k === 'name' && input.renamed) continue;
    const [a, b] = [source.workspace[k] ?? '', restored.workspace[k] ?? ''];
    if (a !== b) wsFields.push({ field: k, before: a, after: b });
  }
  if (wsFields.length) classify(v, { entity: 'workspace' as EntityDiff['entity'], change: 'changed', id: source.workspace.id, label: source.workspace.name, fields: wsFields });

  const members = source.members.filter((m) => m.status !== 'removed');
  const restoredMembers = new Map(restored.members.filter((m) => m.status !== 'removed').map((m) => [m.userId, m]));
  for (const m of members) {
    const got = restoredMembers.get(mapUser(m.userId));
    restoredMembers.delete(mapUser(m.userId));
    if (!got) classify(v, { entity: 'member', change: 'removed', id: m.userId, label: memberName(m) });
    else if (got.role !== m.role) classify(v, { entity: 'member', change: 'changed', id: m.userId, label: memberName(m), fields: [{ field: 'role', before: m.role, after: got.role }] });
  }
  for (const m of restoredMembers.values()) {
    // the user who ran the restore owns the workspace it created, member of the snapshot or not
    if (m.role === 'owner') excuse(v, { entity: 'member', id: m.userId, label: memberName(m), reason: 'the restoring user owns the workspace it created' });
    else classify(v, { entity: 'member', change: 'added', id: m.userId, label: memberName(m) });
  }

  const automation = (a: Automation): Record<string, unknown> => ({ name: a.name, trigger: a.trigger, conditions: a.conditions, match: a.match, actions: a.actions, isActive: a.isActive });
  const restoredAutomations = new Map(restored.workspaceAutomations.map((a) => [a.id, a]));
  for (const a of source.workspaceAutomations) {
    const mine = restoredAutomations.get(idMap.get(a.id) ?? '') ?? [...restoredAutomations.values()].find((b) => b.name === a.name);
    if (!mine) {
      classify(v, { entity: 'workspaceAutomation', change: 'removed', id: a.id, label: a.name });
      continue;
    }
    restoredAutomations.delete(mine.id);
    const [x, y] = [translateIds(mapUsers(automation(a), input.userMap), idMap) as Record<string, unknown>, automation(mine)];
    const fields = Object.keys(x).filter((k) => canon(x[k]) !== canon(y[k])).map((k) => ({ field: k, before: x[k], after: y[k] }));
    if (fields.length) classify(v, { entity: 'workspaceAutomation', change: 'changed', id: a.id, label: a.name, fields });
  }
  for (const b of restoredAutomations.values()) classify(v, { entity: 'workspaceAutomation', change: 'added', id: b.id, label: b.name });
}

/** Compares one workspace; `ok` when nothing restorable differs. */
export function compareWorkspace(input: CompareInput): WorkspaceComparison {
  const { source, restored } = input;
  const v = startVerdict(input);
  const members = source.members.filter((m) => m.status !== 'removed');
  count(v, { workspace: 1, member: members.length, automation: source.workspaceAutomations.length });
  if (!restored) {
    for (const m of source.modules) {
      const t = sourceTreeOf(input, source, m.id);
      if (t) count(v, treeCounts(t));
    }
    fail(v, { entity: 'workspace', id: source.workspace.id, label: source.workspace.name, reason: 'not restored' });
    return finish(v);
  }
  const idMap = idsFor(input, [source.workspace.id, source.workspaceAutomations, source.modules.map((m) => m.id)]);
  compareTop(v, source, restored, idMap);

  const restoredModules = new Map(restored.modules.map((m) => [m.id, m]));
  for (const m of source.modules) {
    const read = input.read?.get(m.id);
    if (read && restoredModules.delete(read.restoredModuleId)) {
      addModule(v, read);
      continue;
    }
    const tree = sourceTreeOf(input, source, m.id);
    if (!tree) continue;
    const match = restoredModules.get(idMap.get(m.id) ?? '') ?? [...restoredModules.values()].find((x) => x.name === m.name);
    const mine = match ? restored.tree(match.id) : null;
    if (!match || !mine) {
      count(v, treeCounts(tree));
      classify(v, { entity: 'module', change: 'removed', id: tree.module.id, label: tree.module.name });
      continue;
    }
    restoredModules.delete(match.id);
    addModule(v, compareModule(input, tree, mine));
  }
  for (const m of restoredModules.values()) classify(v, { entity: 'module', change: 'added', id: m.id, label: m.name });
  return finish(v);
}

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

function finish(v: Verdict): WorkspaceComparison {
  const { input, tally, differing, notRestorable } = v;
  for (const t of Object.values(tally)) t.equal = Math.max(0, t.compared - t.differing - t.notRestorable);
  return { workspaceId: input.source.workspace.id, name: input.source.workspace.name, entities: tally, differing, notRestorable, ok: differing.length === 0 };
}

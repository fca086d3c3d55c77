// The recover page's restore preview ("whole module"): `restore module`'s own planner on the module
// as of the snapshot, except that the cells of plain columns and the plain records are counted in
// SQL (store/read/restore-content.ts) rather than read.
//
// Why the cells' count is the planner's (restore/module/plan-content.ts, the cells phase): a cell is a createCell
// step when its record is restored, its column is restored, it holds a value and its record has a
// collection to go to; otherwise it is either skipped silently or listed as not restorable. A plain
// column — one of the module's columns at the snapshot, not a relation, whose settings name no other
// column — is always restored (it is in no cycle: columnTiers puts it in the first tier) and none of
// its cells is ever listed (only a missing column or a relation into a dead module lists a cell). So
// a cell of a plain column is a step exactly when it holds a value and its record is restored with a
// collection — which the planner's own record steps tell. Every other cell (missing, relation and
// column-naming columns) is read and planned as before, so what is listed is the planner's, in its
// order. Steps of the cells phase are only ever counted by the page (summarisePlan), never shown.
//
// Why the records' count is the planner's (planTopRecords): a top-level record whose collection the
// snapshot holds is one createRecord step, counted under "records", listed as not restorable only
// when it has no position; its step is chained only when another top-level record shares its
// collection and position (tieChains, a missing position counting as 0), and writes twice when its
// `then` holds anything — it always does with a position. A plain record (restore-content.ts) has a
// position, no tie, its collection: one step, two writes, unchained, nothing listed. Not archived, it
// has no archival step; with no sub-record, no note, no cell read (of a column that is not plain)
// naming it, no other step looks it up, and its plain cells are counted above (it is restored, with
// its collection: never in recordsWithoutCells). Its id is left out of the planner's own ids
// (`internal`): those only mark the ids inside values and settings to remap when the command runs,
// which the page never shows.

import { memberName } from '../domain/member-name.js';
import type { BoardRecord, Column, Member } from '../domain/entities.js';
import { collectRefs, planRestore, restoredIdMap, summarisePlan, treeFromState, type NotRestored, type PlanSummary } from '../restore/index.js';
import { countValuedCellsOf, readRestoreContent, withContent } from '../store/read/index.js';
import type { StateReader, Store } from '../store/port.js';

type RestorePlan = ReturnType<typeof planRestore>;

export interface RestorePreview {
  moduleName: string;
  counts: Record<string, number>;
  summary: PlanSummary;
  notRestored: NotRestored[];
}


/** Columns whose cells are counted, not read: not relations, settings naming no other column. */
export function plainColumns(columns: readonly Column[]): string[] {
  const ids = new Set(columns.map((c) => c.id));
  return columns.filter((c) => c.type !== 'relation' && collectRefs(c.settings ?? {}, ids).every((r) => r === c.id)).map((c) => c.id);
}

/** Records whose cells the cells phase skips: not restored, or with no collection to go to. */
function recordsWithoutCells(plan: RestorePlan, records: readonly BoardRecord[], collectionIds: ReadonlySet<string>): string[] {
  const restored = new Set<string>();
  const placed = new Map<string, string>();
  for (const p of plan.phases) {
    for (const s of p.steps) {
      if (s.op === 'createRecord') restored.add(s.oldId);
      else if (s.op === 'createSubRecord') {
        restored.add(s.oldId);
        if (s.placeIn) placed.set(s.oldId, s.placeIn);
      }
    }
  }
  const byId = new Map(records.map((r) => [r.id, r]));
  // as planRestore's collectionOf and planContent's cells phase pick the collection
  const collectionOf = (r: BoardRecord): string | null => (r.collectionId && collectionIds.has(r.collectionId) ? r.collectionId : null);
  return records
    .filter((r) => {
      if (!restored.has(r.id)) return true;
      const top = r.parentRecordId ? byId.get(r.parentRecordId) : r;
      return (placed.get(r.id) ?? (top ? collectionOf(top) : null)) === null;
    })
    .map((r) => r.id);
}

/** Phases and count keys as planRestore lays them out, in order. */
const PHASES = ['module', 'module settings', 'collections', 'columns', 'records', 'sub-records', 'seeded columns', 'cells', 'amendments', 'archival', 'grants', 'automations'];
const COUNTS = ['collections', 'columns', 'records', 'subRecords', 'cells', 'amendments', 'grants', 'automations'];

/** Insert `key` where `order` puts it among the keys present (after those before it). */
function placeOf(order: readonly string[], present: readonly string[], key: string): number {
  const rank = order.indexOf(key);
  const at = present.findIndex((k) => order.indexOf(k) > rank);
  return at < 0 ? present.length : at;
}

/** `n` more steps of `op` (unchained, `writes` each) in `phase`, counted under `countKey`, as the
 * planner would have laid them out. */
function addSteps(out: { counts: Record<string, number>; summary: PlanSummary }, phaseName: string, op: string, countKey: string, n: number, writes: number): void {
  if (n === 0) return;
  const { summary } = out;
  let phase = summary.phases.find((p) => p.name === phaseName);
  if (!phase) {
    phase = { name: phaseName, steps: 0, ops: {}, writesAtMost: 0, chained: 0 };
    summary.phases.splice(placeOf(PHASES, summary.phases.map((p) => p.name), phaseName), 0, phase);
  }
  phase.steps += n;
  phase.ops[op] = (phase.ops[op] ?? 0) + n;
  phase.writesAtMost += n * writes;
  summary.writesAtMost += n * writes;
  if (out.counts[countKey] !== undefined) {
    out.counts = { ...out.counts, [countKey]: out.counts[countKey] + n };
    return;
  }
  const entries = Object.entries(out.counts);
  entries.splice(placeOf(COUNTS, entries.map(([k]) => k), countKey), 0, [countKey, n]);
  out.counts = Object.fromEntries(entries);
}

export function previewRestore(store: Store, opts: { moduleId: string; snapshot: number; snapState: StateReader; latestState: StateReader; attribution: string }): RestorePreview {
  const { moduleId, snapshot, snapState, latestState } = opts;
  const plain = plainColumns(snapState.columns(moduleId));
  // the ledger: an erased record or person's amendment is listed as not restorable, as the command will
  const { content, plainValued, plainRecords } = readRestoreContent(store.db, moduleId, snapshot, plain);
  const tree = treeFromState(withContent(snapState, moduleId, content), moduleId, store.db)!;
  const ws = tree.module.workspaceId;
  const liveIds = new Set(latestState.modules(ws).map((m) => m.id));
  const plan = planRestore({
    tree,
    targetWorkspaceId: ws,
    liveModuleIds: liveIds,
    restoredIds: restoredIdMap(store.db, liveIds),
    moduleNames: new Map(snapState.modules(ws).map((m) => [m.id, m.name])),
    memberIds: new Set(latestState.members(ws).map((m) => m.userId)),
    userNames: new Map(snapState.members(ws).map((m) => [m.userId, memberName(m)])),
    attribution: opts.attribution,
  });
  const skipped = recordsWithoutCells(plan, tree.records, new Set(tree.collections.map((c) => c.id)));
  const out = { counts: plan.counts, summary: summarisePlan(plan) };
  addSteps(out, 'records', 'createRecord', 'records', plainRecords, 2);
  addSteps(out, 'cells', 'createCell', 'cells', plainValued - countValuedCellsOf(store.db, snapshot, plain, skipped), 1);
  return { moduleName: tree.module.name, counts: out.counts, summary: out.summary, notRestored: plan.notRestored };
}

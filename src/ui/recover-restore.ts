// The recover page's restore preview ("whole module"): `restore module`'s own planner on the module
// as of the snapshot, except that the cells of plain columns are counted in SQL rather than read.
//
// Why the count is the planner's (restore/module/plan-content.ts, the cells phase): a cell is a createCell
// step when its record is restored, its column is restored, it holds a value and its record has a
// collection to go to; otherwise it is either skipped silently or listed as not restorable. A plain
// column — one of the module's columns at the snapshot, not a relation, whose settings name no other
// column — is always restored (it is in no cycle: columnTiers puts it in the first tier) and none of
// its cells is ever listed (only a missing column or a relation into a dead module lists a cell). So
// a cell of a plain column is a step exactly when it holds a value and its record is restored with a
// collection — which the planner's own record steps tell. Every other cell (missing, relation and
// column-naming columns) is read and planned as before, so what is listed is the planner's, in its
// order. Steps of the cells phase are only ever counted by the page (summarisePlan), never shown.

import { memberName } from '../domain/member-name.js';
import type { BoardRecord, Column, Member } from '../domain/entities.js';
import { collectRefs, planRestore, restoredIdMap, summarisePlan, treeFromState, type NotRestored, type PlanSummary } from '../restore/index.js';
import { countValuedCellsOf, readModuleContentCounting, withContent } from '../store/read/index.js';
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

/** `n` more createCell steps, as the planner would have laid them out (one phase, before amendments). */
function withCountedCells(plan: RestorePlan, n: number): { counts: Record<string, number>; summary: PlanSummary } {
  const summary = summarisePlan(plan);
  if (n === 0) return { counts: plan.counts, summary };
  const after = new Set(['amendments', 'archival', 'grants', 'automations']);
  let phase = summary.phases.find((p) => p.name === 'cells');
  if (!phase) {
    phase = { name: 'cells', steps: 0, ops: {}, writesAtMost: 0, chained: 0 };
    const at = summary.phases.findIndex((p) => after.has(p.name));
    summary.phases.splice(at < 0 ? summary.phases.length : at, 0, phase);
  }
  phase.steps += n;
  phase.ops['createCell'] = (phase.ops['createCell'] ?? 0) + n;
  phase.writesAtMost += n;
  summary.writesAtMost += n;
  // the planner counts cells after records and sub-records, before amendments, grants, automations
  const entries = Object.entries(plan.counts);
  if (plan.counts['cells'] !== undefined) return { counts: { ...plan.counts, cells: plan.counts['cells'] + n }, summary };
  const at = entries.findIndex(([k]) => after.has(k));
  entries.splice(at < 0 ? entries.length : at, 0, ['cells', n]);
  return { counts: Object.fromEntries(entries), summary };
}

export function previewRestore(store: Store, opts: { moduleId: string; snapshot: number; snapState: StateReader; latestState: StateReader; attribution: string }): RestorePreview {
  const { moduleId, snapshot, snapState, latestState } = opts;
  const plain = plainColumns(snapState.columns(moduleId));
  // the ledger: an erased record or person's amendment is listed as not restorable, as the command will
  const { content, plainValued } = readModuleContentCounting(store.db, moduleId, snapshot, plain);
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
  const { counts, summary } = withCountedCells(plan, plainValued - countValuedCellsOf(store.db, snapshot, plain, skipped));
  return { moduleName: tree.module.name, counts, summary, notRestored: plan.notRestored };
}

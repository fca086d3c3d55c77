// The rollback planner: pure. Three sides of one live module — the snapshot to go back to (base),
// the state the damage left (after) and the service now (live) — and a selection; out come the
// writes that put the selected part back in place, and the conflicts: fields someone edited after
// the damage (live differs from both base and after), kept unless forced. Ids stay the live ones;
// what was deleted since is recreated with new ids through the journal, as restore module does, and
// what pointed at it (reference columns, automations) is re-pointed to the copy. One planner per entity
// kind (./rollback/), in this order: collections, columns, what points at recreated structure,
// records, cells, amendments, automations.

import type { Phase, RestorePlan, Step } from '../engine/plan-steps.js';
import { PlanContext, type RollbackInput, type RollbackPlanResult } from './context.js';
import { planAmendments, planCells } from './plan-content.js';
import { planRecords } from './plan-records.js';
import { planRepointColumns, planRepointAutomations, planRepointForeign } from './plan-repoint.js';
import { planCollections, planColumns } from './plan-structure.js';

export { ROLLBACK_KINDS, type FieldChange, type RollbackKind, type RollbackSelection, type Touched } from './selection.js';
export type { FoundBy, Repointed, RollbackInput } from './context.js';
export type RollbackPlan = RollbackPlanResult;

export function planRollback(input: RollbackInput): RollbackPlan {
  const ctx = new PlanContext(input);
  planCollections(ctx);
  const columnUpdates = planColumns(ctx);
  planRepointColumns(ctx, columnUpdates);
  const newRecords = planRecords(ctx);
  planCells(ctx);
  planAmendments(ctx);
  planRepointAutomations(ctx);
  planRepointForeign(ctx);

  const { steps, counts } = ctx;
  for (const s of steps.collections) if (s.op === 'createCollection' || s.op === 'updateCollection') ctx.count('collections');
  for (const s of [...steps.columns, ...steps.columnsNamingColumns]) if (s.op === 'createColumn' || s.op === 'updateColumn') ctx.count('columns');
  ctx.count('records', steps.records.length);
  ctx.count('newRecordsArchived', steps.archival.length);
  const phases: Phase[] = (
    [
      ['collections', steps.collections],
      ['columns', steps.columns],
      ['columns naming recreated columns', steps.columnsNamingColumns],
      ['columns re-pointed at recreated ones', steps.repointColumns],
      // record fields and cell values do not wait for one another: one phase, no barrier between
      ['records and cells', [...steps.records, ...steps.cells]],
      ...steps.content.map((p) => [p.name, p.steps] as const),
      ['amendments', steps.amendments],
      ['automations re-pointed at recreated objects', steps.repointAutomations],
      ['new records', steps.archival],
    ] as ReadonlyArray<readonly [string, Step[]]>
  )
    .filter(([, s]) => s.length)
    .map(([name, s]) => ({ name, steps: [...s] }));
  // what the run recreates, posts again or may make anew gets a new id: never mapped onto itself
  for (const id of [...ctx.recreated, ...ctx.reposted, ...ctx.repointedColumns]) ctx.liveIds.delete(id);
  counts.conflicts = ctx.conflicts.length;
  const plan: RestorePlan = { moduleId: ctx.moduleId, moduleName: input.live.module.name, targetWorkspaceId: input.workspaceId, phases, counts, notRestored: ctx.notRestored };
  return { plan, writes: ctx.writes, conflicts: ctx.conflicts, newRecords, counts, liveIds: ctx.liveIds, repoint: ctx.repoint };
}

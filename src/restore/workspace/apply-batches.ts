// A workspace plan made in batches (plan-workspace-batches.ts) applied through one journal: the
// head, then each batch (planned the moment it runs, dropped once applied), then the tail. After
// each batch its modules are complete on the target; `afterBatch` may read them back (a drill).

import type { ApplyEnv, ApplyResult } from '../engine/apply.js';
import { applyPlan } from '../engine/apply.js';
import type { BatchedWorkspacePlan } from './plan-workspace-batches.js';
import type { Phase } from '../engine/plan-steps.js';

export interface BatchDone {
  /** The restore run (its journal's id map holds the batch's new ids). */
  runId: number;
  /** The workspace restored into, on the target. */
  workspaceId: string;
  /** The snapshot's ids of the batch's modules. */
  sourceModuleIds: string[];
  /** Their ids on the target (those the run created). */
  moduleIds: string[];
  /** Batches still to come (0: this was the last; only the workspace's own automations follow). */
  remaining: number;
}

export async function applyInBatches(plan: BatchedWorkspacePlan, env: ApplyEnv, afterBatch?: (batch: BatchDone) => Promise<void>): Promise<ApplyResult> {
  let offset = 0;
  const run = async (phases: Phase[]): Promise<ApplyResult> => {
    const at = offset;
    const progress = env.onProgress;
    const res = await applyPlan({ ...plan.head, phases }, { ...env, ...(progress ? { onProgress: (done: number) => progress(at + done, plan.steps) } : {}) });
    offset += phases.reduce((n, p) => n + p.steps.length, 0);
    return res;
  };
  let res = await run(plan.head.phases);
  for (const [i, batch] of plan.batches.entries()) {
    const phases = plan.phasesOf(batch);
    res = await run(phases);
    // nothing names a cell: the batch's leave the journal's memory (its table keeps them)
    for (const p of phases) for (const s of p.steps) if (s.op === 'createCell') env.journal.release(s.oldId, s.key);
    if (afterBatch) {
      const moduleIds = batch.moduleIds.map((id) => env.journal.newId(id)).filter((id): id is string => id !== undefined);
      const target = plan.head.targetWorkspaceId;
      await afterBatch({ runId: env.journal.run.id, workspaceId: env.journal.newId(target) ?? target, sourceModuleIds: batch.moduleIds, moduleIds, remaining: plan.batches.length - 1 - i });
    }
  }
  if (plan.tail.length) res = await run(plan.tail);
  return res;
}

// `restore module`: refusals first (reads only), then the plan, then — unless a dry run — the
// journaled apply, with the workspace's automations paused around it when asked.

import { shown } from '../../domain/display-text.js';
import { WbsyncError } from '../../domain/errors.js';
import { applyPlan } from '../engine/apply.js';
import { journaledRun, type JournaledRun, type RunOutcome } from '../engine/journaled-run.js';
import { latestRun, restoredIdMap, type RestoreRun } from '../../store/ledgers/index.js';
import { planRestore } from './plan.js';
import { summarisePlan, type NotRestored, type RestorePlan } from '../engine/plan-steps.js';
import { pauseWorkspaceAutomations } from '../engine/pause.js';
import { chooseSnapshot, refuse, requireWritable, type RestoreDeps, type RunControls } from '../engine/preconditions.js';
import { treeFromState } from '../engine/tree.js';
import { memberName } from '../../domain/member-name.js';
import { acrossInvocations, readForeign, repointReport, unreadWarning, type RepointReport } from '../engine/repoint-foreign.js';
import { planRepointOthers } from './repoint-others.js';

export interface RestoreModuleOptions extends RunControls {
  moduleId: string;
  snapshotId?: number;
  /** Restore into this workspace (default: the module's own). */
  workspaceId?: string;
  asCopy?: boolean;
  pauseAutomations?: boolean;
  dryRun?: boolean;
}

export interface RestoreModuleResult extends RunOutcome {
  /** The new module's id (null on a dry run). */
  moduleId: string | null;
  sourceModuleId: string;
  moduleName: string;
  snapshot: number;
  targetWorkspaceId: string;
  /** A complete earlier run of the same command: nothing was done again. */
  alreadyRestored: boolean;
  /** Objects in the restored module, per entity. */
  counts: Record<string, number>;
  /** Objects this invocation created (less than counts when resuming). */
  created: Record<string, number>;
  foundByLookup: number;
  /** Things to know before trusting the result (modules whose columns and automations could not be read). */
  warnings: string[];
  /** The workspace's and other modules' automations and relation/reference columns that named the
   * deleted module's ids, re-pointed at the copy (a dry run: to be; 'pending' columns). Empty for a
   * copy beside a live original, or a restore into another workspace. */
  repointed: RepointReport;
}

/** A complete earlier run of the same command whose module is still live: nothing is done again,
 * the result is that run's. */
function alreadyRestored(previous: RestoreRun, moduleId: string): Omit<RestoreModuleResult, 'sourceModuleId' | 'moduleName' | 'snapshot' | 'targetWorkspaceId' | 'dryRun' | 'requests' | 'durationMs'> {
  const summary = previous.summary as { counts?: Record<string, number>; notRestored?: NotRestored[]; refused?: number; repointed?: unknown };
  return {
    moduleId,
    runId: previous.id,
    resumed: false,
    alreadyRestored: true,
    counts: summary.counts ?? {},
    created: {},
    foundByLookup: 0,
    warnings: [],
    repointed: (summary.repointed as RepointReport | undefined) ?? { columns: [], automations: [] },
    notRestored: summary.notRestored ?? [],
    refused: summary.refused ?? 0,
    pausedAutomations: [],
  };
}

export async function restoreModule(deps: RestoreDeps, opts: RestoreModuleOptions): Promise<RestoreModuleResult> {
  const { client, store } = deps;
  const started = Date.now();
  const stats0 = client.stats().requests;
  const snapshot = chooseSnapshot(store, 'module', opts.moduleId, opts.snapshotId);
  const state = store.stateAt(snapshot)!;
  const tree = treeFromState(state, opts.moduleId, store.db);
  if (!tree) throw refuse(`snapshot ${snapshot} does not hold module ${opts.moduleId}`);
  const sourceWs = tree.module.workspaceId;
  const target = opts.workspaceId ?? sourceWs;
  const runKey = JSON.stringify(['module', snapshot, opts.moduleId, target, opts.asCopy === true]);
  const previous = latestRun(store.db, runKey);
  const base = { sourceModuleId: opts.moduleId, moduleName: tree.module.name, snapshot, targetWorkspaceId: target, dryRun: opts.dryRun === true };

  const members = await requireWritable(client, target);
  const liveTarget = await client.listModules(target);
  const liveSource = target === sourceWs ? liveTarget : await client.listModules(sourceWs).catch(() => []);
  if (liveSource.some((m) => m.id === opts.moduleId) && !opts.asCopy) {
    throw refuse(`module ${opts.moduleId} (${shown(tree.module.name)}) still exists`, 'give --as-copy to restore it as a new copy beside it');
  }
  if (previous?.status === 'complete' && previous.newModuleId && liveTarget.some((m) => m.id === previous.newModuleId)) {
    return { ...base, ...alreadyRestored(previous, previous.newModuleId), requests: client.stats().requests - stats0, durationMs: Date.now() - started };
  }

  const plan = planRestore({
    tree,
    targetWorkspaceId: target,
    liveModuleIds: new Set(liveTarget.map((m) => m.id)),
    restoredIds: restoredIdMap(store.db, new Set(liveTarget.map((m) => m.id))),
    moduleNames: new Map(state.modules(sourceWs).map((m) => [m.id, m.name])),
    memberIds: new Set(members.map((m) => m.userId)),
    userNames: new Map(state.members(sourceWs).map((m) => [m.userId, memberName(m)])),
    attribution: opts.attribution,
  });
  // The source gone and restored into its own workspace: what the other modules and the workspace
  // hold that named its ids follows the copy (a copy beside a live original leaves them alone).
  const sourceGone = !liveSource.some((m) => m.id === opts.moduleId);
  const foreign = sourceGone && target === sourceWs ? await readForeign(client, liveTarget.filter((m) => m.id !== previous?.newModuleId), opts.moduleId, target) : null;
  const repoint = acrossInvocations(foreign ? planRepointOthers(plan, tree, foreign) : [], previous);
  const warnings = unreadWarning(foreign ?? undefined);
  if (opts.dryRun) return { ...dryRunResult(base, plan, previous), repointed: repointReport(repoint, null), warnings, requests: client.stats().requests - stats0, durationMs: Date.now() - started };

  return journaledRun(
    deps,
    { previous, settleMs: opts.settleMs, since: { at: started, requests: stats0 }, start: { kind: 'module', runKey, snapshotId: snapshot, sourceIds: [opts.moduleId], targetWorkspaceId: target, options: { asCopy: opts.asCopy === true, pauseAutomations: opts.pauseAutomations === true, repoint } } },
    async (r) => ({
      ...(await applyModulePlan(deps, opts, plan, base, r)),
      repointed: repointReport(repoint, { newId: (id) => r.journal.newId(id), isRefused: (id) => r.journal.isRefused(id) }),
      warnings,
    }),
    (result) => completed(deps, opts, snapshot, result),
  );
}

/** What every result of the command says about its source and target. */
type Base = Pick<RestoreModuleResult, 'sourceModuleId' | 'moduleName' | 'snapshot' | 'targetWorkspaceId' | 'dryRun'>;

/** A dry run: the plan, nothing written (requests and duration set by the caller). */
function dryRunResult(base: Base, plan: RestorePlan, previous: RestoreRun | null): Omit<RestoreModuleResult, 'requests' | 'durationMs' | 'repointed' | 'warnings'> {
  return {
    ...base,
    moduleId: null,
    runId: null,
    resumed: previous !== null && previous.status !== 'complete',
    alreadyRestored: false,
    counts: plan.counts,
    created: {},
    foundByLookup: 0,
    notRestored: plan.notRestored,
    refused: 0,
    pausedAutomations: [],
    plan: summarisePlan(plan),
  };
}

/** Inside the journaled run: the automations paused when asked, the plan applied (letting the
 * service's automation runs settle before the automations phase), the result. */
async function applyModulePlan(deps: RestoreDeps, opts: RestoreModuleOptions, plan: RestorePlan, base: Base, { journal, run, resumed, settle }: JournaledRun): Promise<Omit<RestoreModuleResult, 'repointed' | 'warnings'>> {
  const { client } = deps;
  const paused = opts.pauseAutomations ? await pauseWorkspaceAutomations(client, journal, base.targetWorkspaceId) : [];
  const res = await applyPlan(plan, {
    client,
    journal,
    parallel: opts.parallel,
    signal: opts.signal,
    onProgress: opts.onProgress,
    beforePhase: async (p) => {
      if (p.name === 'automations') await settle();
    },
  });
  if (!res.newModuleId) throw new WbsyncError('internal', 'restore finished without a module id');
  const notRestored = [...plan.notRestored, ...res.refused];
  const result: Omit<RestoreModuleResult, 'repointed' | 'warnings'> = {
    ...base,
    moduleId: res.newModuleId,
    runId: run.id,
    resumed,
    alreadyRestored: false,
    counts: plan.counts,
    created: res.created,
    foundByLookup: res.foundByLookup,
    notRestored,
    refused: res.refused.length,
    pausedAutomations: paused,
    requests: 0,
    durationMs: 0,
  };
  return result;
}

/** Logged, and the summary kept with the run. */
function completed(deps: RestoreDeps, opts: RestoreModuleOptions, snapshot: number, result: RestoreModuleResult): Record<string, unknown> {
  if (result.refused) deps.logger?.warn({ moduleId: result.moduleId, refused: result.refused }, 'module restored; the service refused some writes');
  deps.logger?.info({ moduleId: result.moduleId, from: opts.moduleId, snapshot, requests: result.requests }, 'module restored');
  return { counts: result.counts, created: result.created, notRestored: result.notRestored, refused: result.refused, requests: result.requests, repointed: result.repointed };
}

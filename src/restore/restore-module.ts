// `restore module`: refusals first (reads only), then the plan, then — unless a dry run — the
// journaled apply, with the workspace's automations paused around it when asked.
//
// Who may restore: the key's user must be an owner or admin of the target workspace. The port has
// no "who am I", so this is probed read-only: GET /module-access/{ws}/{member} answers owners and
// admins only (403 otherwise) in both dialects. A member or guest could make only a partial copy
// (visibility and grants need owner/admin), so they are refused rather than half-served.

import type { ServiceClient } from '../api/port.js';
import type { Logger } from '../config/logger.js';
import type { Member } from '../domain/entities.js';
import { memberName } from '../domain/member-name.js';
import { WbsyncError, isWbsyncError } from '../domain/errors.js';
import type { Store } from '../store/port.js';
import { applyPlan } from './apply.js';
import { journaledRun, type RunOutcome } from './journaled-run.js';
import { latestRun, restoredIdMap } from './journal.js';
import { planRestore } from './plan.js';
import { summarisePlan, type NotRestored } from './plan-steps.js';
import { pauseWorkspaceAutomations } from './pause.js';
import { treeFromState } from './tree.js';

export interface RestoreDeps {
  client: ServiceClient;
  store: Store;
  logger?: Logger;
}

/** How a journaled run goes: what every command that writes through the applier takes. */
export interface RunControls {
  /** config.restore.attribution */
  attribution: string;
  parallel?: number;
  /** Wait before automations are created and automations re-activated, so the service's asynchronous
   * runs of the run's own writes find them still absent or paused. Default 250 ms. */
  settleMs?: number;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

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
}

export function refuse(message: string, hint?: string, details?: Record<string, unknown>): WbsyncError {
  return new WbsyncError('restore_refused', message, { hint, details });
}

/** The snapshot to restore from: the one asked for (it must hold the module) or the latest holding it. */
export function chooseSnapshot(store: Store, kind: 'workspace' | 'module' | 'record', id: string, asked: number | undefined): number {
  const holding = store.snapshotsHolding(kind, id);
  if (asked !== undefined) {
    if (!holding.includes(asked)) {
      throw refuse(
        `snapshot ${asked} does not hold ${kind} ${id}`,
        holding.length ? `snapshots holding it: ${holding.join(', ')}` : `no snapshot holds ${kind} ${id}`,
        { snapshotsHolding: holding },
      );
    }
    return asked;
  }
  if (!holding.length) throw refuse(`no snapshot holds ${kind} ${id}`, "run 'wbsync snapshots' to see what was backed up", { snapshotsHolding: [] });
  return Math.max(...holding);
}

/** Refuses (exit 6, nothing written) unless the key's user is an owner or admin of `workspaceId`. */
export async function requireWritable(client: ServiceClient, workspaceId: string): Promise<Member[]> {
  const visible = await client.listWorkspaces();
  if (!visible.some((w) => w.id === workspaceId)) {
    throw refuse(`workspace ${workspaceId} is not writable by this key: its user is not a member`, 'restore into a workspace the key belongs to (--workspace)');
  }
  const members = await client.listMembers(workspaceId);
  const probe = members[0];
  try {
    if (probe) await client.getModuleAccess(workspaceId, probe.userId);
  } catch (e) {
    if (isWbsyncError(e) && e.code === 'forbidden') {
      throw refuse(`workspace ${workspaceId} is not writable by this key: restoring needs an owner or admin`, 'ask an owner to restore, or to make this user an admin');
    }
    throw e;
  }
  return members;
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
    throw refuse(`module ${opts.moduleId} (${tree.module.name}) still exists`, 'give --as-copy to restore it as a new copy beside it');
  }
  if (previous?.status === 'complete' && previous.newModuleId && liveTarget.some((m) => m.id === previous.newModuleId)) {
    const summary = previous.summary as { counts?: Record<string, number>; notRestored?: NotRestored[]; refused?: number };
    return {
      ...base,
      moduleId: previous.newModuleId,
      runId: previous.id,
      resumed: false,
      alreadyRestored: true,
      counts: summary.counts ?? {},
      created: {},
      foundByLookup: 0,
      notRestored: summary.notRestored ?? [],
      refused: summary.refused ?? 0,
      pausedAutomations: [],
      requests: client.stats().requests - stats0,
      durationMs: Date.now() - started,
    };
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
  if (opts.dryRun) {
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
      requests: client.stats().requests - stats0,
      durationMs: Date.now() - started,
    };
  }

  return journaledRun(
    deps,
    { previous, settleMs: opts.settleMs, since: { at: started, requests: stats0 }, start: { kind: 'module', runKey, snapshotId: snapshot, sourceIds: [opts.moduleId], targetWorkspaceId: target, options: { asCopy: opts.asCopy === true, pauseAutomations: opts.pauseAutomations === true } } },
    async ({ journal, run, resumed, settle }) => {
      const paused = opts.pauseAutomations ? await pauseWorkspaceAutomations(client, journal, target) : [];
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
      const result: RestoreModuleResult = {
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
    },
    (result) => {
      if (result.refused) deps.logger?.warn({ moduleId: result.moduleId, refused: result.refused }, 'module restored; the service refused some writes');
      deps.logger?.info({ moduleId: result.moduleId, from: opts.moduleId, snapshot, requests: result.requests }, 'module restored');
      return { counts: result.counts, created: result.created, notRestored: result.notRestored, refused: result.refused, requests: result.requests };
    },
  );
}

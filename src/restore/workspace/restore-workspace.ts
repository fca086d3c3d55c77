// `restore workspace`: a whole workspace back — into a new workspace (same or another service) or
// an existing one — through one journal: refusals first (reads only), then the plan, then, unless a
// dry run, the journaled apply. Running the same command again resumes; nothing is created twice.

import type { ServiceClient } from '../../api/port.js';
import { WbsyncError, isWbsyncError } from '../../domain/errors.js';
import { applyInBatches, type BatchDone } from './apply-batches.js';
import { journaledRun, type RunOutcome } from '../engine/journaled-run.js';
import { RunJournal, latestRun } from '../../store/ledgers/index.js';
import { erasedIn } from '../../store/erasure/index.js';
import type { NotRestored } from '../engine/plan-steps.js';
import { planWorkspaceInBatches } from './plan-workspace-batches.js';
import { pauseWorkspaceAutomations } from '../engine/pause.js';
import { summarisePlan } from '../engine/plan-steps.js';
import { chooseSnapshot, refuse, requireWritable, type RestoreDeps, type RunControls } from '../engine/preconditions.js';
import { treeFromState } from '../engine/tree.js';

export interface RestoreWorkspaceOptions extends RunControls {
  workspaceId: string;
  snapshotId?: number;
  /** Restore into this live workspace instead of creating one. */
  intoWorkspace?: string;
  /** Name of the workspace to create (default: the original's). */
  newName?: string;
  /** Old user id → user id on the target. */
  userMap?: ReadonlyMap<string, string>;
  pauseAutomations?: boolean;
  dryRun?: boolean;
  /** Called once a batch of modules is complete on the target (a drill reads them back then). */
  afterBatch?: (batch: BatchDone) => Promise<void>;
  /** Records per batch of modules (default BATCH_RECORDS). */
  batchRecords?: number;
}

export interface RestoreWorkspaceResult extends RunOutcome {
  /** The restored workspace's id (null on a dry run that would create one). */
  workspaceId: string | null;
  sourceWorkspaceId: string;
  name: string;
  snapshot: number;
  alreadyRestored: boolean;
  modules: { sourceModuleId: string; moduleId: string | null; name: string; counts: Record<string, number> }[];
  members: { toAdd: number; present: number; refused: number };
  automations: { workspace: number; module: number };
  counts: Record<string, number>;
}

/** Refuses (exit 6) when the name is taken on the target by a workspace this run did not make. */
async function requireFreeName(client: ServiceClient, name: string, ours: string | undefined): Promise<void> {
  const taken = (await client.listWorkspaces()).find((w) => w.name === name && w.id !== ours);
  if (taken) {
    throw refuse(`a workspace named '${name}' exists on the target already (${taken.id})`, 'restore into it with --into-workspace ID, or give another name with --new-name NAME');
  }
}

export async function restoreWorkspace(deps: RestoreDeps, opts: RestoreWorkspaceOptions): Promise<RestoreWorkspaceResult> {
  const { client, store } = deps;
  const started = Date.now();
  const stats0 = client.stats().requests;
  const snapshot = chooseSnapshot(store, 'workspace', opts.workspaceId, opts.snapshotId);
  const state = store.stateAt(snapshot)!;
  const ws = state.workspaces().find((w) => w.id === opts.workspaceId);
  if (!ws) throw refuse(`snapshot ${snapshot} does not hold workspace ${opts.workspaceId}`);
  const name = opts.newName ?? ws.name;
  const userMap = opts.userMap ?? new Map<string, string>();
  const runKey = JSON.stringify(['workspace', snapshot, ws.id, opts.intoWorkspace ?? `new:${name}`, [...userMap].sort()]);
  const previous = latestRun(store.db, runKey);
  const before = previous ? new RunJournal(store.db, previous) : null;
  const madeBefore = before?.newId(ws.id);
  // a create sent by a run that crashed before its answer: the resumed run finds it by name
  const pendingCreate = previous?.status !== 'complete' && before?.isPending(ws.id) === true;

  // reads only, until the plan runs
  let present = new Set<string>();
  let liveModules: string[] = [];
  if (opts.intoWorkspace) {
    present = new Set((await requireWritable(client, opts.intoWorkspace)).map((m) => m.userId));
    liveModules = (await client.listModules(opts.intoWorkspace)).map((m) => m.id);
  } else if (!pendingCreate) {
    await requireFreeName(client, name, madeBefore);
  }
  // a few modules at a time: neither this process nor the target holds the workspace whole
  const batched = planWorkspaceInBatches({
    workspace: ws,
    members: state.members(ws.id),
    moduleIds: state.modules(ws.id).map((m) => m.id),
    loadTree: (id) => treeFromState(state, id, store.db),
    ...(opts.batchRecords ? { batchRecords: opts.batchRecords } : {}),
    workspaceAutomations: state.workspaceAutomations(ws.id),
    target: opts.intoWorkspace ? { into: opts.intoWorkspace } : { create: name },
    userMap,
    presentUsers: present,
    liveModuleIds: new Set(liveModules),
    attribution: opts.attribution,
  });
  const plan = batched.head;
  // modules the erasure ledger took whole are in no tree: listed here (records and persons by the trees)
  for (const x of erasedIn(store.db, { workspaceId: ws.id })) {
    if (x.kind === 'module') plan.notRestored.push({ entity: 'module', id: x.id, label: '[erased]', reason: `erased on ${x.erasedAt} (by ${x.erasure}): not in any snapshot, not restored` });
  }
  const base = { sourceWorkspaceId: ws.id, name, snapshot, dryRun: opts.dryRun === true, members: { ...plan.members, refused: 0 }, automations: plan.automations, counts: plan.counts };
  const outcome = (journal: RunJournal | null): RestoreWorkspaceResult['modules'] => plan.modules.map((m) => ({ ...m, moduleId: journal?.newId(m.sourceModuleId) ?? null }));

  if (previous?.status === 'complete' && (opts.intoWorkspace || (madeBefore && (await client.listWorkspaces()).some((w) => w.id === madeBefore)))) {
    const summary = previous.summary as { notRestored?: NotRestored[]; refused?: number };
    return { ...base, workspaceId: opts.intoWorkspace ?? madeBefore ?? null, dryRun: false, runId: previous.id, resumed: false, alreadyRestored: true, modules: outcome(new RunJournal(store.db, previous)), notRestored: summary.notRestored ?? [], refused: summary.refused ?? 0, pausedAutomations: [], requests: client.stats().requests - stats0, durationMs: Date.now() - started };
  }
  if (opts.dryRun) {
    return { ...base, workspaceId: opts.intoWorkspace ?? null, runId: null, resumed: previous !== null && previous.status !== 'complete', alreadyRestored: false, modules: outcome(null), notRestored: plan.notRestored, refused: 0, pausedAutomations: [], plan: summarisePlan(batched.whole()), requests: client.stats().requests - stats0, durationMs: Date.now() - started };
  }

  return journaledRun(
    deps,
    { previous, settleMs: opts.settleMs, since: { at: started, requests: stats0 }, start: { kind: 'workspace', runKey, snapshotId: snapshot, sourceIds: [ws.id], targetWorkspaceId: opts.intoWorkspace ?? null, options: { newName: name, pauseAutomations: opts.pauseAutomations === true, userMap: Object.fromEntries(userMap) } } },
    async ({ journal, run, resumed, settle }) => {
      const paused = opts.pauseAutomations && opts.intoWorkspace ? await pauseWorkspaceAutomations(client, journal, opts.intoWorkspace) : [];
      const res = await applyInBatches(batched, {
        client,
        journal,
        parallel: opts.parallel,
        signal: opts.signal,
        onProgress: opts.onProgress,
        beforePhase: async (p) => {
          if (p.name === 'automations' || p.name === 'workspace automations') await settle();
        },
      }, opts.afterBatch).catch((e: unknown) => {
        // the first write of all: a key that may not create workspaces has written nothing
        if (isWbsyncError(e) && e.code === 'forbidden' && journal.newId(ws.id) === undefined && !opts.intoWorkspace) {
          throw refuse(`the target key cannot create workspaces: ${e.message}`, 'use a key of a user allowed to create workspaces, or restore into an existing one with --into-workspace ID');
        }
        throw e;
      });
      const workspaceId = opts.intoWorkspace ?? journal.newId(ws.id);
      if (!workspaceId) throw new WbsyncError('internal', 'workspace restore finished without a workspace id');
      const result: RestoreWorkspaceResult = {
        ...base,
        members: { ...plan.members, refused: res.refused.filter((r) => r.entity === 'member').length },
        workspaceId,
        runId: run.id,
        resumed,
        alreadyRestored: false,
        modules: outcome(journal),
        notRestored: [...plan.notRestored, ...res.refused],
        refused: res.refused.length,
        pausedAutomations: paused,
        requests: 0,
        durationMs: 0,
      };
      return result;
    },
    (result) => {
      deps.logger?.info({ workspaceId: result.workspaceId, from: ws.id, snapshot, modules: result.modules.length, requests: result.requests }, 'workspace restored');
      return { counts: plan.counts, notRestored: result.notRestored, refused: result.refused, requests: result.requests, workspaceId: result.workspaceId };
    },
  );
}

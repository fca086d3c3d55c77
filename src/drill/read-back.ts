// The drill's read-back, a batch of modules at a time: once the restore has completed a batch (see
// restore/apply-batches.ts), the normal sync code reads the restored workspace in full into the
// scratch database, and the scratch emulator forgets the content of the batch's modules. Each
// module is compared later from the pass that read it whole; the last pass (after the workspace's
// own recipes) gives the workspace, its members, its recipes and its module list.

import type { ServiceClient } from '../api/port.js';
import type { Logger } from '../config/logger.js';
import type { RunningEmulator } from '../emulator/types.js';
import { treeFromState, type BatchDone } from '../restore/index.js';
import type { StateReader, Store } from '../store/port.js';
import { runPass } from '../sync/pass.js';
import type { DrillSide } from './compare.js';

export interface ReadBackDeps {
  client: ServiceClient;
  /** The scratch database the passes write. */
  store: Store;
  logger: Logger;
  signal?: AbortSignal;
}

export class BatchedReadBack {
  /** Restored module id → the snapshot of the pass that read it complete. */
  private readonly snapshotOf = new Map<string, number>();
  private readonly problems: string[] = [];
  passes = 0;
  /** Time spent reading back between batches (the restore's phase does not include it). */
  ms = 0;

  constructor(
    private readonly deps: ReadBackDeps,
    private readonly emulator: RunningEmulator,
  ) {}

  /** After a batch: settle the service's recipe runs, read the workspace, forget the batch. */
  async afterBatch(batch: BatchDone): Promise<void> {
    // the last batch is read by the last pass: nothing would be gained by forgetting it first
    if (batch.remaining === 0) return;
    const t0 = Date.now();
    try {
      await this.emulator.idle();
      const snapshot = await this.pass([batch.workspaceId]);
      if (snapshot === null) return;
      for (const id of batch.moduleIds) this.snapshotOf.set(id, snapshot);
      this.emulator.forgetModuleContent(batch.moduleIds);
    } finally {
      this.ms += Date.now() - t0;
    }
  }

  /** The last pass, over every restored workspace: null when it could not run. */
  async final(workspaceIds: string[]): Promise<StateReader | null> {
    const snapshot = await this.pass(workspaceIds);
    return snapshot === null ? null : this.deps.store.stateAt(snapshot);
  }

  /** Why the read-back is incomplete, if it is. */
  error(): string | undefined {
    return this.problems.length ? this.problems.join('; ') : undefined;
  }

  /** A restored workspace as read back: each module from the pass that read it whole. */
  side(state: StateReader, workspaceId: string): DrillSide | null {
    const workspace = state.workspaces().find((w) => w.id === workspaceId);
    if (!workspace) return null;
    return {
      workspace,
      members: state.members(workspaceId),
      workspaceAutomations: state.workspaceAutomations(workspaceId),
      modules: state.modules(workspaceId),
      tree: (moduleId) => {
        const at = this.snapshotOf.get(moduleId);
        return treeFromState(at === undefined ? state : this.deps.store.stateAt(at)!, moduleId);
      },
    };
  }

  private async pass(workspaceIds: string[]): Promise<number | null> {
    const { client, store, logger, signal } = this.deps;
    this.passes++;
    try {
      const pass = await runPass({ client, store, logger }, { full: true, workspaceIds, ...(signal ? { signal } : {}) });
      if (pass.failures.length) this.problems.push(`read-back incomplete: ${pass.failures.map((f) => `${f.moduleName ?? f.moduleId ?? f.workspaceId}: ${f.reason}`).join('; ')}`);
      return pass.snapshot;
    } catch (e) {
      if (signal?.aborted) throw e;
      this.problems.push(`read-back failed: ${e instanceof Error ? e.message : String(e)}`);
      return null;
    }
  }
}

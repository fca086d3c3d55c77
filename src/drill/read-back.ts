// The drill's read-back from the bundled emulator, a batch of modules at a time: once the restore
// has completed a batch (see restore/apply-batches.ts), each of the batch's modules is read back
// live by the crawler a full pass uses (the records the feed names that no listing shows — archived
// ones — read by id, as a full pass reads them), compared with the snapshot's module at once, and
// then the scratch emulator forgets the batch's content. Only what was just restored is read: the
// modules of this batch, the grants, and the feed from where its last read left it when the
// snapshot's modules hold archived records. The read-
// back in all costs about one pass, and neither this process nor the scratch holds a workspace
// whole. After the restore, the workspace's own parts (its fields, members, own automations and
// module list) are read live for the final compare.

import type { ServiceClient } from '../api/port.js';
import type { Logger } from '../config/logger.js';
import type { Module } from '../domain/entities.js';
import type { RunningEmulator } from '../emulator/types.js';
import { grantsOf, readGrantsLive, type BatchDone, type ModuleTree } from '../restore/index.js';
import { tailActivity } from '../sync/activity-tail.js';
import { crawlModule } from '../sync/module-crawl.js';
import { RecordTrace } from '../sync/record-trace.js';
import { compareModule, sourceTreeOf, type DrillSide, type IdSource, type ModuleCompareInput, type ModuleOutcome } from './compare.js';

export interface ReadBackDeps {
  client: ServiceClient;
  logger: Logger;
  signal?: AbortSignal;
  /** The users the scratch service maps the snapshot's to, and the attribution line. */
  userMap: ReadonlyMap<string, string>;
  attribution: string;
}

/** One module of the service read as a full pass reads it, as a tree; `trace` names its records
 * no listing shows. */
async function readModule(client: ServiceClient, module: Module, trace: RecordTrace, grants: Map<string, Set<string>> | null): Promise<ModuleTree> {
  const res = await crawlModule(client, module, null, { mode: 'full', namedRecords: new Set(trace.idsInModule(module.id)), trace });
  const up = res.batch.upserts ?? {};
  const gone = new Set((res.batch.gone ?? []).map((g) => g.id));
  return {
    module,
    collections: up.collections ?? [],
    columns: up.columns ?? [],
    records: (up.records ?? []).filter((r) => !gone.has(r.id)),
    cells: (up.cells ?? []).filter((c) => !gone.has(c.recordId)),
    amendments: (up.amendments ?? []).filter((a) => !gone.has(a.recordId)),
    automations: up.automations ?? [],
    grants: grantsOf(module.id, grants),
  };
}

export class BatchedReadBack {
  /** Restored workspace id → snapshot module id → what comparing it found. */
  private readonly outcomes = new Map<string, Map<string, ModuleOutcome>>();
  /** Restored workspace id → the newest feed row read so far. */
  private readonly cursors = new Map<string, string | null>();
  private readonly problems: string[] = [];
  /** Modules read back (each once). */
  modulesRead = 0;
  /** Time spent reading back (and comparing) between batches (the restore's phase does not include it). */
  ms = 0;

  constructor(
    private readonly deps: ReadBackDeps,
    private readonly emulator: RunningEmulator,
  ) {}

  /** After a batch: settle the service's automation runs, read the batch's modules back and
   * compare them, then forget them. */
  async afterBatch(batch: BatchDone, source: DrillSide, ids: IdSource): Promise<void> {
    const t0 = Date.now();
    try {
      await this.emulator.idle();
      await this.readAndCompare(batch.workspaceId, batch.sourceModuleIds, source, ids);
      this.emulator.forgetModuleContent(batch.moduleIds);
    } finally {
      this.ms += Date.now() - t0;
    }
  }

  /** The restored workspace's own parts, read live once the restore is done (modules no batch
   * read are read now); null when the scratch service does not list it. */
  async side(workspaceId: string, source: DrillSide, ids: IdSource): Promise<DrillSide | null> {
    const { client, signal } = this.deps;
    try {
      const workspace = (await client.listWorkspaces()).find((w) => w.id === workspaceId);
      if (!workspace) return null;
      const done = this.outcomes.get(workspaceId);
      const left = source.modules.map((m) => m.id).filter((id) => !done?.has(id));
      if (left.length) await this.readAndCompare(workspaceId, left, source, ids);
      const [members, workspaceAutomations, modules] = await Promise.all([client.listMembers(workspaceId), client.listWorkspaceAutomations(workspaceId), client.listModules(workspaceId)]);
      // every module compared already (or missing): none is held
      return { workspace, members, workspaceAutomations, modules, tree: () => null };
    } catch (e) {
      if (signal?.aborted) throw e;
      this.problems.push(`read-back failed: ${e instanceof Error ? e.message : String(e)}`);
      return null;
    }
  }

  /** The modules compared as they were read back, by the snapshot's module id. */
  compared(workspaceId: string): ReadonlyMap<string, ModuleOutcome> {
    return this.outcomes.get(workspaceId) ?? new Map();
  }

  /** Why the read-back is incomplete, if it is. */
  error(): string | undefined {
    return this.problems.length ? this.problems.join('; ') : undefined;
  }

  /** Reads `sourceModuleIds`' restored modules and compares each with the snapshot's at once. */
  private async readAndCompare(workspaceId: string, sourceModuleIds: string[], source: DrillSide, ids: IdSource): Promise<void> {
    const { client, logger, signal } = this.deps;
    const compareInput: ModuleCompareInput = { idMap: ids, userMap: this.deps.userMap, attribution: this.deps.attribution };
    // the feed since the last read of it says what no listing shows (archived records): read once
    // a module of the snapshot holds one — none may be unlisted otherwise
    let trace: RecordTrace | null = null;
    const feed = async (): Promise<RecordTrace> => {
      const tail = await tailActivity(client, workspaceId, this.cursors.get(workspaceId) ?? null);
      if (tail.gap) logger.warn({ workspaceId, reason: tail.gap }, 'drill read-back: the feed has a gap; archived records may go unread');
      this.cursors.set(workspaceId, tail.head ?? this.cursors.get(workspaceId) ?? null);
      const t = new RecordTrace();
      t.add(tail.rows);
      return t;
    };
    const [live, members] = await Promise.all([client.listModules(workspaceId), client.listMembers(workspaceId)]);
    const grants = await readGrantsLive(client, workspaceId, members);
    const byId = new Map(live.map((m) => [m.id, m]));
    const newIds = ids.lookup(new Set(sourceModuleIds));
    const done = this.outcomes.get(workspaceId) ?? new Map<string, ModuleOutcome>();
    this.outcomes.set(workspaceId, done);
    for (const id of sourceModuleIds) {
      const module = byId.get(newIds.get(id) ?? '');
      // not restored: the final compare finds it missing
      if (!module || done.has(id)) continue;
      const tree = sourceTreeOf(compareInput, source, id);
      if (!tree) continue;
      try {
        if (!trace && tree.records.some((r) => r.isArchived)) trace = await feed();
        const mine = await readModule(client, module, trace ?? new RecordTrace(), grants);
        this.modulesRead++;
        done.set(id, compareModule(compareInput, tree, mine));
      } catch (e) {
        if (signal?.aborted) throw e;
        this.problems.push(`read-back of module ${module.name} failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }
}

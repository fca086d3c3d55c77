// A restore drill: snapshot N copied out of the database (one read transaction, then the source is
// closed), every selected workspace restored from the copy into a scratch service, the scratch
// service crawled by the normal sync code into a scratch database, and the two compared modulo ids.
// Its files live in a 0700 temporary folder removed afterwards, failure or not; the configured
// service is never contacted.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../config/logger.js';
import { isWbsyncError } from '../domain/errors.js';
import type { Dialect } from '../emulator/types.js';
import { refuse, restoreWorkspace, type RestoreWorkspaceResult, treeFromState } from '../restore/index.js';
import { openStore } from '../store/index.js';
import type { StateReader, Store } from '../store/port.js';
import { runPass } from '../sync/pass.js';
import { BatchedReadBack } from './read-back.js';
import { compareWorkspace, NOT_RESTORABLE_FIELDS, type DrillSide, type IdSource, type WorkspaceComparison } from './compare.js';
import { startScratchEmulator, stagingService, type HttpSettings, type ScratchService } from './scratch-service.js';

export interface DrillOptions {
  /** The snapshot database (opened read-only, only to copy snapshot N out). */
  db: string;
  snapshotId?: number;
  /** Only these workspaces (default: every workspace of the snapshot). */
  workspaceIds?: string[];
  dialect: Dialect;
  /** Restore into this staging service instead of the bundled emulator. */
  target?: { baseUrl: string; apiKey: string };
  attribution: string;
  http: HttpSettings;
  /** Where the temporary folder goes (default: the system's). */
  tmpRoot?: string;
  logger: Logger;
  signal?: AbortSignal;
  /** Tests: the scratch service once it runs (its request log, its fault injection). */
  onScratch?: (s: ScratchService) => void;
  /** Records per batch of modules restored and read back together (default: the restore's). */
  batchRecords?: number;
}

export interface WorkspaceDrill extends WorkspaceComparison {
  /** The id the restore gave it on the scratch service. */
  restoredId: string | null;
  requests: number;
  /** Why the restore or the read-back stopped short, when it did. */
  error?: string;
}

export interface DrillReport {
  ok: boolean;
  snapshot: number;
  /** 'the bundled emulator (observed dialect)' or the staging URL. */
  service: string;
  startedAt: string;
  durationMs: number;
  workspaces: WorkspaceDrill[];
  /** Where the time went: copying the snapshot out, restoring, reading back, comparing. */
  phases: { copyMs: number; restoreMs: number; readBackMs: number; compareMs: number };
  /** Fields no restore carries over, never compared. */
  notRestorableFields: string[];
}

/** The ledger (the copy's erasures) makes the source side what a restore may bring back: an erased
 * person's amendments are left out of both, and listed as not restorable. */
function sideOf(state: StateReader, workspaceId: string, ledger?: Store): DrillSide | null {
  const workspace = state.workspaces().find((w) => w.id === workspaceId);
  if (!workspace) return null;
  return {
    workspace,
    members: state.members(workspaceId),
    workspaceAutomations: state.workspaceAutomations(workspaceId),
    modules: state.modules(workspaceId),
    tree: (moduleId) => treeFromState(state, moduleId, ledger?.db),
  };
}

/** The run's id map in the journal, looked up for the ids one module names: never loaded whole. */
function journalIds(db: Store['db'], runId: number): IdSource {
  const get = db.prepare('SELECT new_id FROM restore_ids WHERE run_id = ? AND old_id = ? AND new_id IS NOT NULL').pluck();
  return {
    lookup(oldIds) {
      const out = new Map<string, string>();
      for (const id of oldIds) {
        const n = get.get(runId, id) as string | undefined;
        if (n !== undefined) out.set(id, n);
      }
      return out;
    },
  };
}

const messageOf = (e: unknown): string => (isWbsyncError(e) || e instanceof Error ? e.message : String(e));

/** Copies snapshot N out of the database, read-only: the only time the drill touches it. */
async function copySnapshot(db: string, asked: number | undefined, to: string): Promise<number> {
  if (!fs.existsSync(db)) throw refuse(`no database at ${db}`, "run 'wbsync sync' first, or point --db at the snapshot database");
  const source = openStore(db, { readonly: true });
  try {
    const n = asked ?? source.latestCompleteSnapshot();
    if (n === null) throw refuse('no complete snapshot to drill', "run 'wbsync sync' first");
    const status = source.listSnapshots().find((s) => s.id === n)?.status;
    if (status !== 'complete') throw refuse(`snapshot ${n} ${status ? `is ${status}` : 'does not exist'}; only a complete snapshot can be drilled`, "pick one from 'wbsync snapshots'");
    await source.exportTo(to, n);
    return n;
  } finally {
    source.close();
  }
}

/** The snapshot's workspaces to drill (all, or those asked for: refused when one is missing). */
function selectSources(copy: Store, snapshot: number, asked: string[] | undefined): DrillSide[] {
  const state = copy.stateAt(snapshot)!;
  const all = state.workspaces().map((w) => w.id);
  const ids = asked?.length ? [...new Set(asked)] : all;
  const missing = ids.filter((id) => !all.includes(id));
  if (missing.length) throw refuse(`snapshot ${snapshot} does not hold workspace ${missing.join(', ')}`, `workspaces in it: ${all.join(', ') || 'none'}`);
  if (!ids.length) throw refuse(`snapshot ${snapshot} holds no workspace to drill`, "check workspaces.include / .exclude and run 'wbsync sync'");
  return ids.map((id) => sideOf(state, id, copy)!);
}

/** How one workspace's restore went. */
interface Restored {
  result?: RestoreWorkspaceResult;
  error?: string;
  requests: number;
}

/** What the phases of a drill share. */
interface DrillRun {
  opts: DrillOptions;
  copy: Store;
  snapshot: number;
  service: ScratchService;
  /** The bundled emulator's read-back, batch by batch (null: a staging service, read by one pass). */
  batched: BatchedReadBack | null;
  started: number;
}

/** Each workspace restored into the scratch service (the batched read-back runs between batches). */
async function restoreEach(run: DrillRun, sources: DrillSide[]): Promise<Map<string, Restored>> {
  const { opts, copy, service, batched } = run;
  const stamp = new Date(run.started).toISOString().slice(0, 19).replace(/[-:T]/g, '');
  const restores = new Map<string, Restored>();
  for (const side of sources) {
    const before = service.client.stats().requests;
    try {
      const result = await restoreWorkspace(
        { client: service.client, store: copy, logger: opts.logger },
        {
          workspaceId: side.workspace.id,
          snapshotId: run.snapshot,
          userMap: service.userMap,
          attribution: opts.attribution,
          // a staging service may hold the name already (an earlier drill): a name of its own
          ...(opts.target ? { newName: `${side.workspace.name} (wbsync drill ${stamp})` } : {}),
          settleMs: opts.target ? 250 : 5,
          ...(opts.signal ? { signal: opts.signal } : {}),
          ...(batched ? { afterBatch: (b) => batched.afterBatch(b, side, journalIds(copy.db, b.runId)) } : {}),
          ...(opts.batchRecords ? { batchRecords: opts.batchRecords } : {}),
        },
      );
      restores.set(side.workspace.id, { result, requests: service.client.stats().requests - before });
    } catch (e) {
      if (opts.signal?.aborted) throw e;
      restores.set(side.workspace.id, { error: `restore failed: ${messageOf(e)}`, requests: service.client.stats().requests - before });
    }
  }
  return restores;
}

/** The restored sides by restored workspace id: the batched read-back's workspace parts, read live,
 * or one full pass of a staging service into `scratch` (opened here; the caller closes it). */
async function readBackSides(run: DrillRun, sources: DrillSide[], restores: Map<string, Restored>, scratch: { path: string; store?: Store }): Promise<{ sides: Map<string, DrillSide | null>; error?: string }> {
  const { opts, service, batched } = run;
  const sides = new Map<string, DrillSide | null>();
  if (batched) {
    for (const source of sources) {
      const r = restores.get(source.workspace.id)!;
      if (r.result?.workspaceId && r.result.runId) sides.set(r.result.workspaceId, await batched.side(r.result.workspaceId, source, journalIds(run.copy.db, r.result.runId)));
    }
    const error = batched.error();
    return { sides, ...(error ? { error } : {}) };
  }
  const restoredIds = [...restores.values()].map((r) => r.result?.workspaceId).filter((id): id is string => !!id);
  if (!restoredIds.length) return { sides };
  scratch.store = openStore(scratch.path);
  try {
    const pass = await runPass({ client: service.client, store: scratch.store, logger: opts.logger }, { full: true, workspaceIds: restoredIds, ...(opts.signal ? { signal: opts.signal } : {}) });
    const readBack = scratch.store.stateAt(pass.snapshot);
    for (const id of restoredIds) sides.set(id, readBack ? sideOf(readBack, id) : null);
    if (pass.failures.length) return { sides, error: `read-back incomplete: ${pass.failures.map((f) => `${f.moduleName ?? f.moduleId ?? f.workspaceId}: ${f.reason}`).join('; ')}` };
    return { sides };
  } catch (e) {
    if (opts.signal?.aborted) throw e;
    return { sides, error: `read-back failed: ${messageOf(e)}` };
  }
}

/** Each workspace's verdict: the snapshot's side against the restored side (modules the batched
 * read-back compared already are taken as they were found). */
function verdicts(run: DrillRun, sources: DrillSide[], restores: Map<string, Restored>, readBack: { sides: Map<string, DrillSide | null>; error?: string }, userMap: ReadonlyMap<string, string>): WorkspaceDrill[] {
  const { opts, batched } = run;
  return sources.map((source) => {
    const r = restores.get(source.workspace.id)!;
    const restoredId = r.result?.workspaceId ?? null;
    const comparison = compareWorkspace({
      source,
      restored: restoredId ? (readBack.sides.get(restoredId) ?? null) : null,
      idMap: r.result?.runId ? journalIds(run.copy.db, r.result.runId) : new Map(),
      userMap,
      // the result lists the plan's limits first, then the run's refusals
      planned: r.result ? r.result.notRestored.slice(0, r.result.notRestored.length - r.result.refused) : [],
      refused: r.result ? r.result.notRestored.slice(r.result.notRestored.length - r.result.refused) : [],
      attribution: opts.attribution,
      renamed: opts.target !== undefined,
      ...(batched && restoredId ? { read: batched.compared(restoredId) } : {}),
    });
    const error = r.error ?? (restoredId ? readBack.error : undefined);
    return { ...comparison, ok: comparison.ok && !error, restoredId, requests: r.requests, ...(error ? { error } : {}) };
  });
}

export async function runDrill(opts: DrillOptions): Promise<DrillReport> {
  const started = Date.now();
  const dir = fs.mkdtempSync(path.join(opts.tmpRoot ?? os.tmpdir(), 'wbsync-drill-'));
  fs.chmodSync(dir, 0o700);
  let copy: Store | undefined;
  const scratch: { path: string; store?: Store } = { path: path.join(dir, 'read-back.db') };
  let service: ScratchService | undefined;
  try {
    const snapshot = await copySnapshot(opts.db, opts.snapshotId, path.join(dir, 'snapshot.db'));
    const copied = Date.now();
    copy = openStore(path.join(dir, 'snapshot.db'));
    const sources = selectSources(copy, snapshot, opts.workspaceIds);
    service = opts.target ? stagingService(opts.target, opts.http, opts.logger) : await startScratchEmulator(sources.flatMap((s) => s.members), opts.dialect, opts.http, opts.logger);
    opts.onScratch?.(service);
    // the bundled emulator is read back a batch of modules at a time, each compared as it is read
    // and then forgotten, so neither it nor this process holds a workspace whole; a staging
    // service keeps its data and is read back by one pass at the end
    const emulator = service.emulator;
    const batched = emulator ? new BatchedReadBack({ client: service.client, logger: opts.logger, userMap: service.userMap, attribution: opts.attribution, ...(opts.signal ? { signal: opts.signal } : {}) }, emulator) : null;
    const run: DrillRun = { opts, copy, snapshot, service, batched, started };

    const restores = await restoreEach(run, sources);
    await service.settle();
    const restored = Date.now();
    const readBack = await readBackSides(run, sources, restores, scratch);

    // the scratch service's world is the largest thing held: gone before the compare
    const { describe: serviceName, userMap } = service;
    await service.stop();
    service = undefined;
    const readBackDone = Date.now();
    const workspaces = verdicts(run, sources, restores, readBack, userMap);
    return {
      ok: workspaces.every((w) => w.ok),
      snapshot,
      service: serviceName,
      startedAt: new Date(started).toISOString(),
      durationMs: Date.now() - started,
      workspaces,
      // the batches' read-backs (and their modules' compares) ran between the restore's batches:
      // counted as reading back
      phases: { copyMs: copied - started, restoreMs: restored - copied - (batched?.ms ?? 0), readBackMs: readBackDone - restored + (batched?.ms ?? 0), compareMs: Date.now() - readBackDone },
      notRestorableFields: NOT_RESTORABLE_FIELDS,
    };
  } finally {
    await service?.stop().catch(() => undefined);
    scratch.store?.close();
    copy?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// One sync pass: a snapshot of kind full or incremental over every selected workspace.
// Incremental when every selected workspace has a cursor (and --full was not given), else full;
// a workspace without a cursor, or whose feed has a gap, is crawled fully inside the pass.

import PQueue from 'p-queue';
import type { Workspace } from '../domain/entities.js';
import { WbsyncError, isWbsyncError } from '../domain/errors.js';
import type { ServiceClient } from '../api/port.js';
import type { Logger } from '../config/logger.js';
import { erasedSet } from '../store/erasure/index.js';
import { restoredSources } from '../store/read/index.js';
import type { SnapshotKind, Store, WriteBatch } from '../store/port.js';
import type { FreshnessClock } from './pass-env.js';
import { syncWorkspace, type PartFailure, type WorkspaceOutcome } from './workspace-sync.js';
import { ACCEPT_LOSS_HINT, lossOf, type HeldLoss } from './pass-env.js';

export type { HeldLoss } from './pass-env.js';

export interface PassOptions {
  full?: boolean;
  /** --workspace: restrict the pass to these ids (must be visible to the key). */
  workspaceIds?: string[];
  include?: string[];
  exclude?: string[];
  /** Modules crawled at once (memory is bounded by this many modules). Default 2. */
  modulesInFlight?: number;
  /** Time slices read side by side when a full pass reads a whole feed. Default 8. */
  feedSlices?: number;
  /** freshness.maxStalenessMinutes in ms: incremental passes also read in full, oldest first,
   * a budgeted share of each workspace so every part is re-read within it. Absent: no re-reading. */
  maxStalenessMs?: number;
  signal?: AbortSignal;
  onProgress?: (p: PassProgress) => void;
  /** Record a workspace that lost everything at once as gone (sync --accept-loss); else held. */
  acceptLoss?: boolean;
}

export interface PassProgress {
  modulesDone: number;
  modulesTotal: number;
  records: number;
  requests: number;
  retries: number;
  elapsedMs: number;
}

export interface PassResult {
  snapshot: number;
  kind: SnapshotKind;
  status: 'complete' | 'failed';
  counts: Record<string, number>;
  gone: Record<string, number>;
  requests: number;
  retries: number;
  durationMs: number;
  workspaces: WorkspaceOutcome[];
  failures: PartFailure[];
  /** Erased entities (wbsync erase) still live on the service, met and not stored this pass. */
  erasedLive?: string[];
  /** Workspaces that lost everything at once: held (nothing marked gone), a failure each. */
  held?: HeldLoss[];
}

export interface PassDeps {
  client: ServiceClient;
  store: Store;
  logger: Logger;
  now?: () => number;
}

function add(into: Record<string, number>, from: Record<string, number>): void {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
}

export function selectWorkspaces(all: Workspace[], opts: PassOptions): { selected: Workspace[]; missing: string[] } {
  const include = new Set(opts.include ?? []);
  const exclude = new Set(opts.exclude ?? []);
  let selected = all.filter((w) => (include.size === 0 || include.has(w.id)) && !exclude.has(w.id));
  const missing: string[] = [];
  if (opts.workspaceIds?.length) {
    const ids = new Set(opts.workspaceIds);
    for (const id of ids) if (!selected.some((w) => w.id === id)) missing.push(id);
    selected = selected.filter((w) => ids.has(w.id));
  }
  return { selected, missing };
}

function freshnessClock(store: Store, opts: PassOptions, snapshot: number, lastPass: number | null): FreshnessClock | undefined {
  return opts.maxStalenessMs
    ? {
        windowMs: opts.maxStalenessMs,
        nowMs: Date.parse(store.getSnapshot(snapshot)!.startedAt),
        lastPassMs: lastPass === null ? null : Date.parse(store.getSnapshot(lastPass)!.startedAt),
      }
    : undefined;
}

interface WorkspaceListing {
  snapshot: number;
  /** Every workspace the key sees, and those of them the pass selected. */
  all: Workspace[];
  selected: Workspace[];
  apply: (batch: WriteBatch) => Promise<void>;
  failures: PartFailure[];
  held: HeldLoss[];
}

/** Writes the selected workspaces (and, while the erasure ledger names someone, their members)
 * and marks gone the modules of a workspace no longer listed — unless it lost everything at once,
 * which is held instead (a failure, nothing marked gone). */
async function writeWorkspaceList(deps: PassDeps, opts: PassOptions, listing: WorkspaceListing): Promise<void> {
  const { client, store } = deps;
  const { snapshot, all, selected, apply, failures, held } = listing;
  const visibleIds = all.map((w) => w.id);
  const before = store.stateAt(snapshot)?.workspaces() ?? [];
  const inScope = (id: string): boolean => selectWorkspaces([{ id } as Workspace], { ...opts, workspaceIds: opts.workspaceIds }).selected.length > 0;
  // The erasure ledger names a person: the store's writer learns their name and email from the
  // live member lists first, so a row quoting them is scrubbed whichever batch brings it (a full
  // pass writes the feed in batches before the member lists).
  const learn = erasedSet(store.db).users.size > 0 ? (await Promise.all(selected.map((w) => client.listMembers(w.id).catch(() => [])))).flat() : [];
  // A workspace that vanished with everything in it (the likeliest cause: the key lost access —
  // e.g. the service answered an empty list) is held: nothing marked gone, a failure, an alert.
  const prevState = store.stateAt(snapshot);
  const vanished = before.filter((w) => inScope(w.id) && !visibleIds.includes(w.id));
  // (one `wbsync restore workspace` brought back elsewhere is a loss someone already answered)
  const restored = vanished.length ? restoredSources(store.db, 'workspace') : new Set<string>();
  for (const w of vanished) {
    const loss = opts.acceptLoss || restored.has(w.id) ? null : lossOf(w, (prevState?.modules(w.id) ?? []).map((m) => m.id), prevState?.moduleSizes(w.id) ?? new Map(), 'is not listed any more');
    if (!loss) continue;
    held.push(loss);
    failures.push({ workspaceId: w.id, reason: `held: the service no longer lists this workspace (${loss.modules} modules, ${loss.records} records) — nothing marked gone; ${ACCEPT_LOSS_HINT}` });
  }
  const heldIds = new Set(held.map((l) => l.workspaceId));
  await apply({
    upserts: { workspaces: selected, ...(learn.length ? { members: learn } : {}) },
    // Only a listing that covered a workspace can say it is gone: scope = stored ones in the filter.
    listings: [{ kind: 'workspace', ids: [...visibleIds, ...heldIds], scopeIds: before.map((w) => w.id).filter(inScope) }],
    gone: vanished.filter((w) => !heldIds.has(w.id)).flatMap((w) => (prevState?.modules(w.id) ?? []).map((m) => ({ kind: 'module' as const, id: m.id, cascade: true }))),
  });
}

export async function runPass(deps: PassDeps, opts: PassOptions = {}): Promise<PassResult> {
  const { client, store, logger } = deps;
  const now = deps.now ?? Date.now;
  const started = now();
  const stats0 = client.stats();
  const interrupted = store.failInterruptedSnapshots();
  if (interrupted.length) logger.warn({ snapshots: interrupted }, 'marked interrupted snapshots failed');

  const all = await client.listWorkspaces();
  const { selected, missing } = selectWorkspaces(all, opts);
  const kind: SnapshotKind = opts.full || selected.some((w) => !store.getCursor(w.id)) ? 'full' : 'incremental';
  const lastPass = store.latestCompleteSnapshot();
  const snapshot = store.beginSnapshot(kind);
  const freshness = freshnessClock(store, opts, snapshot, lastPass);
  const counts: Record<string, number> = {};
  const gone: Record<string, number> = {};
  const failures: PartFailure[] = missing.map((id) => ({ workspaceId: id, reason: 'workspace not visible to the key (not a member, or it does not exist)' }));
  const outcomes: WorkspaceOutcome[] = [];
  const progress = { modulesDone: 0, modulesTotal: 0, records: 0 };
  const report = (): void => {
    const s = client.stats();
    opts.onProgress?.({ ...progress, requests: s.requests - stats0.requests, retries: s.retries - stats0.retries, elapsedMs: now() - started });
  };
  const erasedLive = new Set<string>();
  const held: HeldLoss[] = [];
  const limiter = new PQueue({ concurrency: opts.modulesInFlight ?? 2 });
  const apply = async (batch: WriteBatch): Promise<void> => {
    const res = await store.apply(snapshot, batch);
    for (const e of res.erased ?? []) erasedLive.add(e);
    add(counts, res.written);
    add(gone, res.gone);
  };

  const finish = (status: 'complete' | 'failed', extra: Record<string, unknown> = {}): PassResult => {
    const s = client.stats();
    // once per pass: what the erasure ledger kept out although the service still has it
    if (erasedLive.size) logger.warn({ erased: [...erasedLive].sort() }, `erased entities are still live on the service and were not stored: ${[...erasedLive].sort().join(', ')} (wbsync erase --lift ID to store them again)`);
    const result: PassResult = {
      snapshot,
      kind,
      status,
      counts,
      gone,
      requests: s.requests - stats0.requests,
      retries: s.retries - stats0.retries,
      durationMs: now() - started,
      workspaces: outcomes,
      failures,
      ...(erasedLive.size ? { erasedLive: [...erasedLive].sort() } : {}),
      ...(held.length ? { held } : {}),
    };
    store.finishSnapshot(snapshot, status, { ...result, ...extra });
    return result;
  };

  try {
    await writeWorkspaceList({ client, store, logger }, opts, { snapshot, all, selected, apply, failures, held });
    for (const ws of selected) {
      if (opts.signal?.aborted) break;
      const outcome = await syncWorkspace(
        {
          client,
          store,
          snapshotId: snapshot,
          logger,
          limitModules: (fn) => limiter.add(fn) as Promise<Awaited<ReturnType<typeof fn>>>,
          apply,
          onModulesPlanned: (n) => {
            progress.modulesTotal += n;
            report();
          },
          onModuleDone: (records) => {
            progress.modulesDone += 1;
            progress.records += records;
            report();
          },
          signal: opts.signal,
          feedSlices: opts.feedSlices ?? 8,
          freshness,
          acceptLoss: opts.acceptLoss === true,
          feedIndexesBack: ws === selected[selected.length - 1],
        },
        ws,
        opts.full === true,
      );
      outcomes.push(outcome);
      failures.push(...outcome.failures);
      if (outcome.held) held.push(outcome.held);
    }
    if (opts.signal?.aborted) throw new WbsyncError('partial', 'pass interrupted by a signal; nothing half-written was kept — run again to resume', { details: { interrupted: true } });
    // a first fill's indexes are built by the writer thread, off the event loop (store/write/bulk-fill.ts)
    await apply({ indexesBack: true });
  } catch (e) {
    const reason = isWbsyncError(e) ? e.message : String(e);
    try {
      finish('failed', { error: reason });
    } catch (inner) {
      logger.error({ err: String(inner) }, 'could not mark the snapshot failed');
    }
    throw e;
  }
  return finish('complete');
}

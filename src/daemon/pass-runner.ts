// One scheduled pass, the daemon's loop boundary: runs it, logs one line with its figures, feeds
// health and metrics. A failure is logged (rate-limited) and left for the next tick; nothing a
// pass throws ever reaches the scheduler.

import type { ServiceClient } from '../api/port.js';
import type { Logger } from '../config/logger.js';
import { isWbsyncError } from '../domain/errors.js';
import type { SnapshotInfo, Store } from '../store/port.js';
import { newestSnapshotId as newestSnapshot } from '../store/read/index.js';
import { runPass, type PassResult } from '../sync/pass.js';
import type { PassMetrics } from './daemon-metrics.js';
import type { HealthState, PassSummary } from './health-state.js';
import type { PassHooks } from './pass-hooks.js';
import type { RateLimitedLog } from './rate-limited-log.js';
import type { PassKind, PassRunner } from './scheduler.js';

export interface PassRunnerDeps {
  client: ServiceClient;
  store: Store;
  logger: Logger;
  limited: RateLimitedLog;
  health: HealthState;
  metrics: PassMetrics;
  /** Aborted on SIGTERM/SIGINT: runPass stops after the module in flight. */
  signal: AbortSignal;
  include: string[];
  exclude: string[];
  /** freshness.maxStalenessMinutes in ms. */
  maxStalenessMs: number;
  /** Called after every pass (database figures are re-read then, never mid-pass). */
  afterPass(): void;
  /** Alerts, tripwire, pruning (pass-hooks.ts). */
  hooks?: PassHooks;
  now?: () => number;
  progressEveryMs?: number;
}

function summaryOf(r: PassResult, finishedAtMs: number): PassSummary {
  return {
    snapshot: r.snapshot,
    kind: r.kind,
    status: r.status,
    counts: r.counts,
    requests: r.requests,
    durationMs: r.durationMs,
    finishedAt: new Date(finishedAtMs).toISOString(),
    failures: r.failures.length,
  };
}

function newestSnapshotId(store: Store): number {
  return newestSnapshot(store.db) ?? 0;
}

/** The snapshot a failed pass left, if it got as far as beginning one. */
function snapshotAfter(store: Store, before: number): SnapshotInfo | null {
  try {
    const id = newestSnapshotId(store);
    return id > before ? store.getSnapshot(id) : null;
  } catch {
    return null; // the database was closed under a pass that outlived the shutdown deadline
  }
}

export function createPassRunner(deps: PassRunnerDeps): PassRunner {
  const { client, store, logger, limited } = deps;
  const now = deps.now ?? Date.now;
  const progressEveryMs = deps.progressEveryMs ?? 10_000;

  return async (requested: PassKind, reason: string) => {
    const started = now();
    const stats0 = client.stats();
    const snapshotBefore = newestSnapshotId(store);
    let lastProgress = started;
    logger.info({ kind: requested, reason }, 'pass started');
    deps.health.passStarted(requested, started);
    deps.hooks?.passStarted();
    try {
      const r = await runPass(
        { client, store, logger, now },
        {
          full: requested === 'full',
          include: deps.include,
          exclude: deps.exclude,
          maxStalenessMs: deps.maxStalenessMs,
          signal: deps.signal,
          onProgress: (p) => {
            deps.health.passProgress(now());
            if (now() - lastProgress < progressEveryMs) return;
            lastProgress = now();
            logger.info({ kind: requested, ...p }, 'pass progress');
          },
        },
      );
      const finished = now();
      logger.info(
        { snapshot: r.snapshot, kind: r.kind, status: r.status, counts: r.counts, gone: r.gone, requests: r.requests, retries: r.retries, durationMs: r.durationMs, failures: r.failures.length },
        'pass finished',
      );
      for (const f of r.failures) {
        limited.log('warn', { workspaceId: f.workspaceId, moduleId: f.moduleId, reason: f.reason }, 'part of the pass failed', `part failed: ${f.workspaceId}/${f.moduleId ?? ''}: ${f.reason}`);
      }
      deps.metrics.recordPass(r.kind, r.status, r.durationMs);
      deps.metrics.recordReverification(r.workspaces.reduce((n, w) => n + (w.reverified?.requests ?? 0), 0));
      const { recoveredFrom } = deps.health.passSucceeded(summaryOf(r, finished), finished);
      if (recoveredFrom) logger.info({ snapshot: r.snapshot, after: recoveredFrom }, 'recovered');
      deps.hooks?.passSucceeded(r);
    } catch (e) {
      const finished = now();
      const durationMs = finished - started;
      const failedSnap = snapshotAfter(store, snapshotBefore);
      const kind = failedSnap?.kind ?? requested;
      if (deps.signal.aborted) {
        deps.health.passInterrupted();
        deps.metrics.recordPass(kind, 'interrupted', durationMs);
        logger.info({ snapshot: failedSnap?.id ?? null, kind, durationMs }, 'pass interrupted: the snapshot is marked failed');
        return;
      }
      const code = isWbsyncError(e) ? e.code : 'internal';
      const message = e instanceof Error ? e.message : String(e);
      const stats = client.stats();
      deps.metrics.recordPass(kind, 'failed', durationMs);
      const { reason } = deps.health.passFailed({ code, message }, finished, {
        snapshot: failedSnap?.id ?? null,
        kind,
        status: 'failed',
        counts: failedSnap?.counts ?? {},
        requests: stats.requests - stats0.requests,
        durationMs,
        finishedAt: new Date(finished).toISOString(),
        failures: 0,
      });
      deps.hooks?.passFailed(code, message);
      const hint = isWbsyncError(e) ? e.hint : 'this is a bug in wbsync: please report it with the log';
      // Keyed by the error text: the same failure every tick logs once a minute with a count.
      limited.log('error', { kind, snapshot: failedSnap?.id ?? null, code, err: message, hint, durationMs, health: reason }, code === 'auth' || code === 'unreachable' ? `pass failed: ${reason}` : 'pass failed', `pass failed: ${code}: ${message}`);
      if (!isWbsyncError(e) && e instanceof Error) logger.debug({ stack: e.stack }, 'pass failure stack');
    } finally {
      deps.afterPass();
      if (!deps.signal.aborted) deps.hooks?.afterPass(deps.health.freshnessProblem(now()));
    }
  };
}

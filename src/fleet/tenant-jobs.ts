// What one job of a tenant does, by kind: a pass (the daemon's pass runner, with its alerts,
// tripwire and erasures), prune, an offsite push, a restore drill. Each returns its outcome; none
// throws for a failure of the work itself (only for the infrastructure under it).

import type { ServiceClient } from '../api/port.js';
import type { Config } from '../config/schema.js';
import type { Logger } from '../config/logger.js';
import { Notifier } from '../alerts/notifier.js';
import { createPassHooks, type PassHooks } from '../daemon/pass-hooks.js';
import { createPassRunner } from '../daemon/pass-runner.js';
import type { PassMetrics } from '../daemon/daemon-metrics.js';
import type { HealthState } from '../daemon/health-state.js';
import type { RateLimitedLog } from '../daemon/rate-limited-log.js';
import { failedLines } from '../daemon/drill-schedule.js';
import { runDrillInChild } from '../drill/run-child.js';
import { objectStoreOf } from '../offsite/object-store.js';
import { pruneCopies, pushCopy } from '../offsite/offsite.js';
import { isEmptyPolicy, prune } from '../store/retention/index.js';
import type { Store } from '../store/port.js';
import type { JobKind, RunEnd } from './runs.js';

export interface TenantParts {
  config: Config;
  store: Store;
  client: ServiceClient;
  logger: Logger;
  limited: RateLimitedLog;
  health: HealthState;
  metrics: PassMetrics;
  notifier: Notifier;
  afterPass(): void;
}

export interface JobOutcome extends RunEnd {
  /** What the tenant wants next (prune, offsite after a full pass). */
  next: JobKind[];
  fullCompleted?: number;
}

export function wantsPrune(config: Config): boolean {
  const { activityDays: _a, ...policy } = config.retention;
  return !isEmptyPolicy(policy);
}

export function wantsOffsite(config: Config): boolean {
  return Boolean(config.offsite.bucket && config.offsite.afterFullPass);
}

/** The daemon's upkeep around a pass, minus what the fleet runs as jobs of their own (prune, offsite). */
function passHooks(p: TenantParts, capture: (o: { ok: boolean; snapshot: number | null; error: string | null; kind: string }) => void): PassHooks {
  const ops = createPassHooks({
    store: p.store,
    config: { ...p.config, retention: {}, offsite: { ...p.config.offsite, afterFullPass: false } },
    logger: p.logger,
    notifier: p.notifier,
    now: () => new Date(),
    onTripwire: (kind, moduleId) => p.metrics.recordTripwire(kind, moduleId),
  });
  return {
    ...ops,
    passSucceeded(r) {
      ops.passSucceeded(r);
      capture({ ok: r.status === 'complete', snapshot: r.snapshot, error: r.failures.length ? `${r.failures.length} part(s) failed` : null, kind: r.kind });
    },
    passFailed(code, message) {
      ops.passFailed(code, message);
      capture({ ok: false, snapshot: null, error: `${code}: ${message}`, kind: 'failed' });
    },
  };
}

export async function runTenantJob(p: TenantParts, kind: JobKind, reason: string, signal: AbortSignal): Promise<JobOutcome> {
  const { config, store, logger } = p;
  switch (kind) {
    case 'full':
    case 'incremental': {
      let captured: { ok: boolean; snapshot: number | null; error: string | null; kind: string } | null = null;
      const run = createPassRunner({
        client: p.client,
        store,
        logger,
        limited: p.limited,
        health: p.health,
        metrics: p.metrics,
        signal,
        include: config.workspaces.include,
        exclude: config.workspaces.exclude,
        maxStalenessMs: config.freshness.maxStalenessMinutes * 60_000,
        afterPass: p.afterPass,
        hooks: passHooks(p, (o) => (captured = o)),
      });
      await run(kind, reason);
      const c = captured as { ok: boolean; snapshot: number | null; error: string | null; kind: string } | null;
      if (!c) return { ok: false, error: signal.aborted ? 'interrupted: the job was stopped (worker stopping, or its tenant lock was lost)' : 'the pass did not finish', next: [] };
      const full = c.ok && c.kind === 'full';
      const next: JobKind[] = full ? [...(wantsPrune(config) ? (['prune'] as const) : []), ...(wantsOffsite(config) ? (['offsite'] as const) : [])] : [];
      return { ok: c.ok, error: c.error, snapshotId: c.snapshot, details: { kind: c.kind }, next, ...(full && c.snapshot !== null ? { fullCompleted: c.snapshot } : {}) };
    }
    case 'prune': {
      const { activityDays, ...policy } = config.retention;
      if (isEmptyPolicy(policy)) return { ok: true, details: { skipped: 'no retention policy' }, next: [] };
      const res = prune(store.db, { policy, ...(activityDays !== undefined ? { activityDays } : {}), now: new Date() });
      logger.info({ forgotten: res.forget.map((f) => f.id), rows: res.rows, bytesFreed: res.bytesFreed }, 'pruned');
      p.afterPass();
      return { ok: true, details: { forgotten: res.forget.map((f) => f.id), rows: res.rows, bytesFreed: res.bytesFreed }, next: [] };
    }
    case 'offsite': {
      const o = config.offsite;
      if (!o.bucket) return { ok: true, details: { skipped: 'offsite.bucket is not set' }, next: [] };
      const objects = objectStoreOf(o);
      try {
        const m = await pushCopy(store, objects, { prefix: o.prefix, recipients: o.recipients }, new Date());
        const forgotten = await pruneCopies(objects, o.prefix, o.retention, new Date());
        logger.info({ snapshot: m.snapshot, bytes: m.bytes, sha256: m.sha256, forgotten }, 'offsite copy pushed');
        p.metrics.recordOffsite(true, Date.now());
        return { ok: true, snapshotId: m.snapshot, details: { bytes: m.bytes, forgotten }, next: [] };
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        logger.warn({ err: message }, 'offsite push failed');
        p.metrics.recordOffsite(false, Date.now());
        p.notifier.notify({ event: 'offsite_failed', summary: `offsite copy failed: ${message}`.slice(0, 500), details: { where: objects.where } });
        return { ok: false, error: `offsite: ${message}`, next: [] };
      } finally {
        objects.close();
      }
    }
    case 'drill': {
      const started = Date.now();
      const out = await runDrillInChild({ db: store.path, dialect: config.drill.dialect, attribution: config.restore.attribution, http: config.http }, { signal });
      const at = Date.now();
      if (!out.ok) {
        p.metrics.recordDrill(false, at, at - started);
        return { ok: false, error: `drill could not run: ${out.message}`, next: [] };
      }
      const r = out.report;
      p.metrics.recordDrill(r.ok, at, r.durationMs);
      if (r.ok) logger.info({ snapshot: r.snapshot, durationMs: r.durationMs }, 'drill passed');
      else logger.warn({ snapshot: r.snapshot, what: failedLines(r) }, 'drill failed');
      return { ok: r.ok, error: r.ok ? null : failedLines(r, 3).join('; '), snapshotId: r.snapshot, details: { durationMs: r.durationMs }, next: [] };
    }
  }
}

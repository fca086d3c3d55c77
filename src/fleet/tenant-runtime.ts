// One tenant on its home worker: its database (held with the daemon lock while homed here, the
// write lock per job, so `wbsync --db …` commands take their turn between jobs), its client (through
// the shared budget), health and metrics, and its schedule. A tick asks for a job; one job at a
// time is handed to pg-boss (stately queue, singleton key = tenant); running it takes the tenant's
// advisory lock on a connection of its own for the job's life (losing that connection stops the
// job), and starts and records its end only while (worker, epoch) is still the tenant's home.

import path from 'node:path';
import pg from 'pg';
import { createHttpClient } from '../api/http-client.js';
import type { ServiceClient } from '../api/port.js';
import type { Config } from '../config/schema.js';
import type { Logger } from '../config/logger.js';
import { Notifier } from '../alerts/notifier.js';
import { cronIntervalMs } from '../daemon/cron-interval.js';
import { PassMetrics } from '../daemon/daemon-metrics.js';
import { readDbFigures, type DbFigures } from '../daemon/db-figures.js';
import { HealthState } from '../daemon/health-state.js';
import { acquireLock, waitForLock, type DbLock } from '../store/lock.js';
import { createRateLimitedLog } from '../daemon/rate-limited-log.js';
import { nodeCronPort, type CronHandle } from '../daemon/scheduler.js';
import { WbsyncError } from '../domain/errors.js';
import { openStore } from '../store/index.js';
import { ensureDir } from '../store/file-modes.js';
import type { Store } from '../store/port.js';
import type { SharedBudget } from './budget.js';
import type { HomedTenant } from './homes.js';
import { finishRun, startRun, type JobKind } from './runs.js';
import { readTenantKey, tenantConfig } from './tenant-config.js';
import { runTenantJob, type TenantParts } from './tenant-jobs.js';

export interface JobData {
  tenant: string;
  kind: JobKind;
  epoch: number;
  reason: string;
}

export interface TenantRuntimeDeps {
  workerId: string;
  dataDir: string;
  workerConfig: Config;
  logger: Logger;
  pool: pg.Pool;
  pgUrl: string;
  redact(t: string): string;
  budget: SharedBudget;
  /** Hands a job to pg-boss; null when the queue refused it (one already waits for this tenant). */
  send(data: JobData): Promise<string | null>;
  /** The worker is stopping. */
  signal: AbortSignal;
}

const ORDER: readonly JobKind[] = ['full', 'prune', 'offsite', 'drill', 'incremental'];
const STALE_AFTER_INTERVALS = 3;
/** A hold for the fleet copy older than this is let go by the tenant itself (a stuck round must
 * never stop its passes). */
const HOLD_MAX_MS = 10 * 60_000;

export interface RunningJob {
  kind: JobKind;
  runId: number | null;
  since: number;
}

export class TenantRuntime {
  readonly name: string;
  epoch: number;
  readonly baseUrl: string;
  readonly configText: string;
  paused: boolean;
  readonly metrics = new PassMetrics();
  private readonly logger: Logger;
  private parts: TenantParts | null = null;
  private daemonLock: DbLock | null = null;
  private crons: CronHandle[] = [];
  private readonly wanted = new Map<JobKind, string>();
  /** A job of this tenant is in pg-boss (waiting or running) or being sent. */
  private busy = false;
  private busySince = 0;
  running: RunningJob | null = null;
  private idleWaiters: Array<() => void> = [];
  /** Since when the tenant's next job waits for its fleet copy (mover.ts), or 0. */
  private heldSince = 0;
  private holdSaid = false;
  private drillDue = false;
  private drilledAfter: number | null = null;
  private stopped = false;
  private readonly halt = new AbortController();
  problem: string | null = null;
  private figures: DbFigures | null = null;
  jobsDone = 0;

  constructor(
    home: HomedTenant,
    private readonly deps: TenantRuntimeDeps,
  ) {
    this.name = home.tenant;
    this.epoch = home.epoch;
    this.baseUrl = home.baseUrl;
    this.configText = JSON.stringify(home.config);
    this.paused = home.paused;
    this.logger = deps.logger.child({ tenant: home.tenant });
  }

  /** Opens the database and the client and starts the schedule; a problem (no key…) is kept in
   * `problem` (health shows it) and thrown. */
  start(): void {
    const t = { name: this.name, baseUrl: this.baseUrl, config: JSON.parse(this.configText) as Record<string, unknown> };
    const config = tenantConfig(this.deps.workerConfig, t, this.deps.dataDir);
    const { key, warning } = readTenantKey(this.deps.workerConfig.fleet.keyDir, this.name);
    if (warning) this.logger.warn({}, warning);
    ensureDir(path.dirname(config.db));
    this.daemonLock = acquireLock(config.db, { kind: 'daemon', command: `fleet worker ${this.deps.workerId}` });
    let store: Store | undefined;
    try {
      const openLock = acquireLock(config.db, { kind: 'write', command: 'fleet worker start' });
      try {
        store = openStore(config.db);
      } finally {
        openLock.release();
      }
      const limited = createRateLimitedLog(this.logger);
      const metrics = this.metrics;
      const client: ServiceClient = createHttpClient({
        baseUrl: config.baseUrl!,
        apiKey: key,
        concurrency: config.http.concurrency,
        timeoutMs: config.http.timeoutMs,
        retries: config.http.retries,
        gate: this.deps.budget.gate(this.baseUrl),
        onRetry: (r) => limited.log('warn', { endpoint: r.endpoint, reason: r.reason, status: r.status }, 'request retry', `retry: ${r.reason}`),
        onRequest: (r) => metrics.observeRequest(r),
      });
      const maxStalenessMs = config.freshness.maxStalenessMinutes * 60_000;
      const health = new HealthState(STALE_AFTER_INTERVALS * cronIntervalMs(config.schedule.incremental), maxStalenessMs);
      const notifier = new Notifier({ webhooks: config.alerts.webhooks, healthchecksUrl: config.alerts.healthchecksUrl, database: store.path, timeoutMs: config.alerts.timeoutMs, logger: this.logger });
      const openedStore = store;
      const refresh = (): void => {
        try {
          const { include, exclude } = config.workspaces;
          this.figures = readDbFigures(openedStore, (id) => (include.length === 0 || include.includes(id)) && !exclude.includes(id));
          const o = this.figures.oldestVerified;
          health.setOldestVerified(o && { label: `${o.kind} ${o.id} of workspace ${o.workspaceId}`, atMs: o.atMs });
          health.setOpenTripwires(this.figures.openTripwires);
        } catch (e) {
          limited.log('warn', { err: String(e) }, 'could not read database figures for /metrics');
        }
      };
      refresh();
      const seeded = this.figures?.latestComplete?.finishedAtMs;
      if (seeded) health.seedLastSuccess(seeded);
      this.parts = { config, store, client, logger: this.logger, limited, health, metrics, notifier, afterPass: refresh };
      metrics.setLive(() => {
        const now = Date.now();
        const report = health.report(now);
        return { nowMs: now, healthy: report.httpStatus === 200, authFailed: report.body.reason === 'authentication failed', passRunning: this.running !== null, lastSuccessMs: report.body.lastSuccess === null ? null : Date.parse(report.body.lastSuccess), requests: client.stats(), db: this.figures, maxStalenessMs };
      });
    } catch (e) {
      store?.close();
      this.daemonLock.release();
      this.daemonLock = null;
      throw e;
    }
    const cron = nodeCronPort(this.logger);
    const { schedule, drill } = this.parts.config;
    this.crons.push(cron.schedule(schedule.incremental, `wbsync-${this.name}-incremental`, () => this.want('incremental', 'scheduled')));
    this.crons.push(cron.schedule(schedule.full, `wbsync-${this.name}-full`, () => this.want('full', 'scheduled')));
    this.crons.push(cron.schedule(drill.schedule, `wbsync-${this.name}-drill`, () => this.drillTick()));
    if (this.parts.store.latestCompleteSnapshot() === null) this.want('full', 'first start: no complete snapshot');
    else this.want('incremental', 'catch-up at start');
    this.logger.info({ epoch: this.epoch, db: this.parts.store.path, incremental: schedule.incremental, full: schedule.full }, 'tenant started on this worker');
  }

  get config(): Config | null {
    return this.parts?.config ?? null;
  }

  health(): { httpStatus: number; body: unknown } | null {
    return this.parts ? this.parts.health.report(Date.now()) : null;
  }

  private drillTick(): void {
    const latestFull = this.parts?.store.listSnapshots().filter((s) => s.kind === 'full' && s.status === 'complete').at(-1)?.id ?? null;
    if (latestFull !== null && latestFull !== this.drilledAfter) this.want('drill', 'scheduled');
    else this.drillDue = true;
  }

  want(kind: JobKind, reason: string): void {
    if (this.stopped) return;
    if (!this.wanted.has(kind)) this.wanted.set(kind, reason);
    void this.pump();
  }

  get held(): boolean {
    return this.heldSince !== 0;
  }

  /** Since when the tenant's next job has waited for its fleet copy (null: it does not). */
  get heldAt(): Date | null {
    return this.heldSince ? new Date(this.heldSince) : null;
  }

  /** Holds (or lets go) the tenant's next job for its periodic fleet copy (mover.ts): while held no
   * job of it is queued or started; the one running ends as it would. */
  holdJobs(held: boolean): void {
    if (held === this.held) return;
    this.heldSince = held ? Date.now() : 0;
    this.holdSaid = false;
    if (!held) void this.pump();
  }

  /** Whether a job of `kind` must wait for the fleet copy now (said once per hold). */
  private waitsForCopy(kind: JobKind): boolean {
    if (!this.heldSince) return false;
    if (Date.now() - this.heldSince > HOLD_MAX_MS) {
      this.logger.warn({ kind, heldSeconds: Math.round((Date.now() - this.heldSince) / 1000) }, 'fleet copy not written in time: the tenant\'s passes go on without it');
      this.heldSince = 0;
      return false;
    }
    if (!this.holdSaid) {
      this.holdSaid = true;
      this.logger.info({ kind }, 'the next job waits for the tenant\'s fleet copy: due, and written between passes');
    }
    return true;
  }

  /** Hands the next wanted job to pg-boss when none of this tenant's is there. */
  async pump(): Promise<void> {
    if (this.stopped || this.paused || this.busy || this.problem || !this.wanted.size) return;
    const kind = ORDER.find((k) => this.wanted.has(k))!;
    if (this.waitsForCopy(kind)) return;
    const reason = this.wanted.get(kind)!;
    this.busy = true;
    this.busySince = Date.now();
    try {
      const id = await this.deps.send({ tenant: this.name, kind, epoch: this.epoch, reason });
      this.wanted.delete(kind);
      if (kind === 'full') this.wanted.delete('incremental'); // the full pass covers it
      if (id === null) this.logger.info({ kind }, 'a job of this tenant already waits in the queue: it runs first');
    } catch (e) {
      this.busy = false;
      this.logger.warn({ kind, err: this.deps.redact(e instanceof Error ? e.message : String(e)) }, 'could not queue the job (Postgres?): retried at the next tick');
    }
  }

  /** Called by the worker's reconciliation: no job of this tenant is waiting or running in pg-boss. */
  queueEmpty(): void {
    if (this.busy && !this.running && Date.now() - this.busySince > 2_000) {
      this.busy = false;
      void this.pump();
    }
  }

  setPaused(paused: boolean): void {
    if (this.paused === paused) return;
    this.paused = paused;
    this.logger.info({ paused }, paused ? 'tenant paused' : 'tenant resumed');
    if (!paused) void this.pump();
  }

  /** Runs one job handed back by pg-boss; returns what pg-boss records as the job's output. */
  async runJob(data: JobData, jobId: string): Promise<Record<string, unknown>> {
    const parts = this.parts;
    if (!parts || this.stopped) return { skipped: 'the tenant is not running on this worker' };
    if (data.epoch !== this.epoch) return { skipped: `the job is of home epoch ${data.epoch}, the tenant's is ${this.epoch}` };
    if (this.running) throw new WbsyncError('internal', `tenant ${this.name}: a job (${this.running.kind}) is already running here`);
    if (this.waitsForCopy(data.kind)) {
      // queued before the hold: wanted again, and queued again once the copy is written
      if (!this.wanted.has(data.kind)) this.wanted.set(data.kind, data.reason);
      this.busy = false;
      return { skipped: 'held: the tenant\'s fleet copy is written first' };
    }
    this.running = { kind: data.kind, runId: null, since: Date.now() };
    const fence = { tenant: this.name, worker: this.deps.workerId, epoch: this.epoch };
    const stop = new AbortController();
    const onWorkerStop = (): void => stop.abort(new Error(this.halt.signal.aborted ? 'the tenant left this worker' : 'worker stopping'));
    this.deps.signal.addEventListener('abort', onWorkerStop, { once: true });
    this.halt.signal.addEventListener('abort', onWorkerStop, { once: true });
    let lockClient: pg.Client | null = null;
    let writeLock: DbLock | null = null;
    try {
      lockClient = new pg.Client({ connectionString: this.deps.pgUrl, application_name: `wbsync-tenant-lock:${this.name}` });
      const lost = (): void => stop.abort(new Error('tenant lock connection lost'));
      lockClient.on('error', lost);
      lockClient.on('end', lost);
      await lockClient.connect();
      const got = (await lockClient.query<{ ok: boolean }>(`select pg_try_advisory_lock(hashtext('wbsync:' || $1::text)) as ok`, [this.name])).rows[0]?.ok;
      if (!got) throw new WbsyncError('locked', `tenant ${this.name}: another job holds the tenant's lock in Postgres`, { hint: 'it runs elsewhere; this job is dropped and the schedule asks again' });
      const runId = await startRun(this.deps.pool, { ...fence, kind: data.kind, reason: data.reason, jobId });
      if (runId === null) {
        this.logger.info({ kind: data.kind, epoch: this.epoch }, 'job not started: the tenant is no longer homed here at this epoch');
        return { skipped: 'fenced: not homed here at this epoch' };
      }
      this.running.runId = runId;
      try {
        return await this.work(parts, data, runId, fence, stop.signal, (l) => (writeLock = l));
      } catch (e) {
        // the end is recorded whatever happened (best effort: Postgres may be what failed)
        const message = this.deps.redact(e instanceof Error ? e.message : String(e));
        await finishRun(this.deps.pool, runId, fence, { ok: false, error: stop.signal.aborted ? `interrupted: ${message}` : message }).catch(() => undefined);
        throw e;
      }
    } finally {
      (writeLock as DbLock | null)?.release();
      this.deps.signal.removeEventListener('abort', onWorkerStop);
      this.halt.signal.removeEventListener('abort', onWorkerStop);
      if (lockClient) {
        lockClient.removeAllListeners('end');
        lockClient.on('error', () => undefined);
        // ending the session releases the advisory lock with it
        await lockClient.end().catch(() => undefined);
      }
      this.running = null;
      this.busy = false;
      for (const w of this.idleWaiters.splice(0)) w();
      setImmediate(() => void this.pump());
    }
  }

  /** The job itself, under the database's write lock; records its end (fenced). */
  private async work(parts: TenantParts, data: JobData, runId: number, fence: { tenant: string; worker: string; epoch: number }, signal: AbortSignal, holding: (l: DbLock | null) => void): Promise<Record<string, unknown>> {
    const writeLock = await waitForLock(parts.config.db, { command: `fleet ${data.kind}`, signal, waitMs: Number.POSITIVE_INFINITY, logger: this.logger, onWait: (holder) => this.logger.info({ holder, for: data.kind }, 'waiting for the database: another writer holds it') });
    holding(writeLock);
    if (signal.aborted) throw new WbsyncError('unreachable', `tenant ${this.name}: the job was stopped before it began (${String((signal.reason as Error)?.message ?? 'stopped')})`);
    const outcome = await runTenantJob(parts, data.kind, data.reason, signal);
    writeLock.release();
    holding(null);
    if (signal.aborted) outcome.ok = false;
    const home = await finishRun(this.deps.pool, runId, fence, outcome);
    this.jobsDone++;
    if (home) {
      for (const k of outcome.next) this.wanted.set(k, `after full pass ${outcome.snapshotId ?? ''}`.trim());
      if (outcome.fullCompleted !== undefined && this.drillDue) {
        this.drillDue = false;
        this.wanted.set('drill', 'due after a full pass');
      }
      if (data.kind === 'drill' && outcome.snapshotId) this.drilledAfter = outcome.snapshotId;
    }
    return { ok: outcome.ok, ...(outcome.error ? { error: outcome.error } : {}), ...(outcome.snapshotId ? { snapshot: outcome.snapshotId } : {}), fenced: !home };
  }

  /** No more ticks; the job in flight finishes (or, with `abort`, stops after its module, as the
   * worker's signal makes it), then the database is closed and its lock let go. */
  async stop(opts: { abort?: boolean } = {}): Promise<void> {
    this.stopped = true;
    // removed, or its settings or home changed: the job in flight stops after its module (its
    // snapshot is marked failed; the next pass, wherever, redoes the work)
    if (opts.abort) this.halt.abort();
    for (const c of this.crons.splice(0)) c.stop();
    if (this.running) await new Promise<void>((r) => this.idleWaiters.push(r));
    const parts = this.parts;
    this.parts = null;
    if (parts) {
      await parts.notifier.drain(2_000).catch(() => undefined);
      await parts.client.close().catch(() => undefined);
      try {
        parts.store.close();
      } catch (e) {
        this.logger.warn({ err: String(e) }, 'closing the database failed');
      }
    }
    this.daemonLock?.release();
    this.daemonLock = null;
  }
}

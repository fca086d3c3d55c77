// The state of one fleet worker (src/fleet/worker.ts) and what it answers from it: its identity
// (an advisory lock in Postgres), /healthz, and the jobs its queue hands it.

import { randomUUID } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import type PgBoss from 'pg-boss';
import type { Config } from '../config/schema.js';
import type { LoadedConfig } from '../config/load.js';
import type { Logger } from '../config/logger.js';
import type { HealthServer } from '../daemon/health-server.js';
import { createRateLimitedLog, type RateLimitedLog } from '../daemon/rate-limited-log.js';
import { WbsyncError } from '../domain/errors.js';
import { ensureDir } from '../store/file-modes.js';
import { createSharedBudget, type SharedBudget } from './budget.js';
import type { FleetConsole } from './fleet-console.js';
import { WORKER_ID } from './homes.js';
import { fleetError, openFleetDb, type FleetDb } from './pg.js';
import { Mover } from './mover.js';
import { tenantDbPath } from './tenant-config.js';
import type { JobData, TenantRuntime } from './tenant-runtime.js';
import { WorkerMetrics } from './worker-metrics.js';

export interface FleetWorkerOptions {
  loaded: LoadedConfig;
  logger: Logger;
  signal: AbortSignal;
  dataDir: string;
  id: string;
  capacity: number;
  /** Jobs run at once on this worker (default: min(capacity, 4)). */
  concurrency?: number;
}

export const queueOf = (worker: string): string => `wbsync-worker-${worker.replace(/[^A-Za-z0-9_-]/g, '_')}`;
export const JOB_EXPIRE_S = 6 * 3600;

export interface WorkerState {
  id: string;
  capacity: number;
  concurrency: number;
  config: Config;
  fleet: Config['fleet'];
  logger: Logger;
  /** The caller's signal. */
  signal: AbortSignal;
  /** The caller's signal, or the worker ending on its own (a lost identity). */
  stopping: AbortSignal;
  stopWorker: AbortController;
  dataDir: string;
  instance: string;
  queue: string;
  limited: RateLimitedLog;
  db: FleetDb;
  budget: SharedBudget;
  mover: Mover;
  metrics: WorkerMetrics;
  tenants: Map<string, TenantRuntime>;
  failedStarts: Map<string, { at: number; message: string }>;
  /** Tenants stopping in the background (removed, moved by hand, settings changed). */
  leaving: Map<string, Promise<void>>;
  postgresOkAt: number;
  identity: pg.Client | null;
  heldIdentity: boolean;
  boss: PgBoss | null;
  server: HealthServer | undefined;
  /** The web console, once mounted (null when not served). */
  ui: FleetConsole | null;
  jobs: number;
}

/** The worker's options checked, its data folder made, its Postgres pool opened: nothing started yet. */
export function openWorkerState(opts: FleetWorkerOptions): WorkerState {
  const { loaded, logger, signal, id, capacity } = opts;
  const config = loaded.config;
  if (!WORKER_ID.test(id)) throw new WbsyncError('usage', `worker id ${JSON.stringify(id.slice(0, 80))} is not allowed`, { hint: 'use 1-63 letters, digits, dots, dashes and underscores (a StatefulSet pod name fits)' });
  if (!Number.isInteger(capacity) || capacity < 0) throw new WbsyncError('usage', '--capacity expects a whole number of tenants (0 or more)');
  const dataDir = path.resolve(opts.dataDir);
  ensureDir(path.join(dataDir, 'tenants'));
  const limited = createRateLimitedLog(logger);
  const concurrency = Math.max(1, opts.concurrency ?? Math.min(Math.max(capacity, 1), 4));
  const db = openFleetDb(config, { max: 10 + concurrency * 2, onIdleError: (m) => limited.log('warn', { err: m }, 'Postgres connection lost', 'pg idle error') });
  for (const w of db.warnings) logger.warn({}, w);
  const fleet = config.fleet;
  const stopWorker = new AbortController();
  const tenants = new Map<string, TenantRuntime>();
  // moves (src/fleet/mover.ts): a tenant leaves between passes (stopped here, copied, re-homed);
  // one arriving is placed from its copy before it starts
  const s: WorkerState = {
    id, capacity, concurrency, config, fleet, logger, signal, stopWorker, dataDir, limited, db, tenants,
    stopping: AbortSignal.any([signal, stopWorker.signal]),
    instance: randomUUID(),
    queue: queueOf(id),
    budget: createSharedBudget(db.pool, id, fleet.budget, db.redact),
    failedStarts: new Map(),
    leaving: new Map(),
    postgresOkAt: 0,
    identity: null,
    heldIdentity: false,
    boss: null,
    server: undefined,
    ui: null,
    jobs: 0,
    mover: new Mover({
      workerId: id,
      pool: db.pool,
      logger,
      workerConfig: config,
      dbPathOf: (t) => tenantDbPath(dataDir, t),
      stopTenant: async (t) => {
        const rt = tenants.get(t);
        tenants.delete(t);
        s.ui?.release(t);
        await rt?.stop();
      },
      startedTenants: () => [...tenants.values()].filter((t) => t.config).map((t) => ({ tenant: t.name, epoch: t.epoch, running: t.running !== null, held: t.held })),
      holdJobs: (name, held) => {
        const t = tenants.get(name);
        if (!t?.config) return null;
        t.holdJobs(held);
        return { running: t.running !== null };
      },
    }),
    metrics: new WorkerMetrics(() => ({ postgresUp: Date.now() - s.postgresOkAt < fleet.workerTtlSeconds * 1000, tenants: tenants.size, running: [...tenants.values()].filter((t) => t.running).length, budget: s.budget.stats() })),
  };
  return s;
}

/** The advisory lock that makes this process the only one running as the worker's id. */
export async function holdIdentity(s: WorkerState): Promise<void> {
  const c = new pg.Client({ connectionString: s.db.url, application_name: `wbsync-worker:${s.id}` });
  c.on('error', () => undefined);
  await c.connect();
  const ok = (await c.query<{ ok: boolean }>(`select pg_try_advisory_lock(hashtext('wbsync-worker:' || $1::text)) as ok`, [s.id])).rows[0]?.ok;
  if (!ok) {
    await c.end().catch(() => undefined);
    throw new WbsyncError('locked', `another process runs as fleet worker ${s.id}`, { hint: 'give each worker its own --id (and its own --data folder)' });
  }
  c.on('end', () => {
    if (s.identity === c) s.identity = null;
  });
  s.identity = c;
  s.heldIdentity = true;
}

/** /healthz: the worker (up while Postgres answers its heartbeats) and each of its tenants. */
export function workerHealth(s: WorkerState): { httpStatus: number; body: unknown } {
  const now = Date.now();
  const postgres = now - s.postgresOkAt < s.fleet.workerTtlSeconds * 1000;
  const per: Record<string, unknown> = {};
  for (const [name, t] of s.tenants) {
    const h = t.health();
    per[name] = { epoch: t.epoch, paused: t.paused, running: t.running ? { kind: t.running.kind, since: new Date(t.running.since).toISOString() } : null, waitingForCopySince: t.heldAt?.toISOString() ?? null, ...(h ? { status: (h.body as { status: string }).status, health: h.body } : { status: 'not started', problem: t.problem }) };
  }
  for (const [name, f] of s.failedStarts) if (!per[name]) per[name] = { status: 'not started', problem: f.message };
  return {
    httpStatus: postgres ? 200 : 503,
    body: { status: postgres ? 'ok' : 'unhealthy', reason: postgres ? null : 'Postgres unreachable', worker: s.id, capacity: s.capacity, lastHeartbeat: s.postgresOkAt ? new Date(s.postgresOkAt).toISOString() : null, tenants: per },
  };
}

/** One job from this worker's queue, run by its tenant's runtime (skipped if the tenant is not here). */
export async function handleJob(s: WorkerState, job: PgBoss.Job<JobData>): Promise<Record<string, unknown>> {
  const data = job.data;
  const t = s.tenants.get(data.tenant);
  if (!t) {
    s.metrics.jobs.inc({ tenant: data.tenant, kind: data.kind, result: 'skipped' });
    return { skipped: 'the tenant is not homed on this worker' };
  }
  try {
    const out = await t.runJob(data, job.id);
    s.jobs++;
    s.metrics.jobs.inc({ tenant: data.tenant, kind: data.kind, result: out.skipped ? 'skipped' : out.ok ? 'ok' : 'failed' });
    return out;
  } catch (e) {
    s.metrics.jobs.inc({ tenant: data.tenant, kind: data.kind, result: 'error' });
    const err = fleetError(e, s.db.redact, `tenant ${data.tenant}: ${data.kind} job`);
    s.limited.log('warn', { tenant: data.tenant, kind: data.kind, err: err.message }, 'job failed', `job failed: ${data.tenant}`);
    throw err;
  }
}

/** Queues a tenant's job on this worker's queue (at most one waiting per tenant). */
export async function sendJob(s: WorkerState, data: JobData): Promise<string | null> {
  const jobId = await s.boss!.send(s.queue, data, { singletonKey: data.tenant, expireInSeconds: JOB_EXPIRE_S, retryLimit: 0 });
  return jobId;
}

// `wbsync fleet worker`: one worker of the fleet. It holds its id (an advisory lock in Postgres, so
// two processes never run as one worker), registers and beats, takes tenants without a home up to
// its capacity, runs each homed tenant (tenant-runtime.ts) and works its own pg-boss queue (one
// per worker, stately: per tenant at most one job waiting and one running), and serves /healthz
// and /metrics labelled by tenant. Postgres may go away: the worker waits for it (heartbeats and
// the queue retry), jobs whose tenant lock is lost stop, and everything resumes when it is back.

import { randomUUID } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import PgBoss from 'pg-boss';
import type { LoadedConfig } from '../config/load.js';
import type { Logger } from '../config/logger.js';
import { parseListen } from '../config/listen.js';
import { startHealthServer, type HealthServer } from '../daemon/health-server.js';
import { createRateLimitedLog } from '../daemon/rate-limited-log.js';
import { WbsyncError } from '../domain/errors.js';
import { ensureDir } from '../store/file-modes.js';
import { createSharedBudget, releaseWorkerSlots, sweepBudget } from './budget.js';
import { claimTenants, heartbeat, homedOn, registerWorker, WORKER_ID } from './homes.js';
import { mountFleetConsole } from './fleet-console.js';
import { fleetError, openFleetDb } from './pg.js';
import { Mover } from './mover.js';
import { closeOrphanRuns } from './runs.js';
import { BOSS_SCHEMA, ensureFleetSchema } from './schema.js';
import { readFleetStatus } from './status.js';
import { tenantDbPath } from './tenant-config.js';
import { TenantRuntime, type JobData } from './tenant-runtime.js';
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
export const DEAD_LETTERS = 'wbsync-dead-letters';
const JOB_EXPIRE_S = 6 * 3600;

/** The dead-letter queue and this worker's queue. pg-boss creates a queue's partition with DDL that
 * deadlocks against another worker's doing the same, so creation is serialised fleet-wide. */
async function createQueues(pool: pg.Pool, boss: PgBoss, queue: string): Promise<void> {
  const c = await pool.connect();
  try {
    await c.query(`select pg_advisory_lock(hashtext('wbsync:fleet-queues'))`);
    if (!(await boss.getQueue(DEAD_LETTERS))) await boss.createQueue(DEAD_LETTERS, { name: DEAD_LETTERS, policy: 'standard' });
    if (!(await boss.getQueue(queue))) await boss.createQueue(queue, { name: queue, policy: 'stately', retryLimit: 0, expireInSeconds: JOB_EXPIRE_S, deadLetter: DEAD_LETTERS });
  } finally {
    await c.query(`select pg_advisory_unlock(hashtext('wbsync:fleet-queues'))`).catch(() => undefined);
    c.release();
  }
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((r) => {
    const t = setTimeout(r, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), r()), { once: true });
  });

export async function runFleetWorker(opts: FleetWorkerOptions): Promise<{ jobs: number }> {
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
  const instance = randomUUID();
  const fleet = config.fleet;
  const tenants = new Map<string, TenantRuntime>();
  const failedStarts = new Map<string, { at: number; message: string }>();
  /** Tenants stopping in the background (removed, moved by hand, settings changed). */
  const leaving = new Map<string, Promise<void>>();
  let postgresOkAt = 0;
  let identity: pg.Client | null = null;
  let heldIdentity = false;
  let boss: PgBoss | null = null;
  let server: HealthServer | undefined;
  let closeConsole = (): void => undefined;
  /** Closes the console's read-only handle on a tenant's database as the tenant leaves this worker. */
  let releaseConsole = (_tenant: string): void => undefined;
  let jobs = 0;
  const stopWorker = new AbortController();
  const stopping = AbortSignal.any([signal, stopWorker.signal]);
  const budget = createSharedBudget(db.pool, id, fleet.budget, db.redact);
  const queue = queueOf(id);
  // moves (src/fleet/mover.ts): a tenant leaves between passes (stopped here, copied, re-homed);
  // one arriving is placed from its copy before it starts
  const mover = new Mover({
    workerId: id,
    pool: db.pool,
    logger,
    workerConfig: config,
    dbPathOf: (t) => tenantDbPath(dataDir, t),
    stopTenant: async (t) => {
      const rt = tenants.get(t);
      tenants.delete(t);
      releaseConsole(t);
      await rt?.stop();
    },
    idleTenants: () => [...tenants.values()].filter((t) => !t.running && t.config).map((t) => ({ tenant: t.name, epoch: t.epoch })),
  });

  /** The advisory lock that makes this process the only one running as `id`. */
  const holdIdentity = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: db.url, application_name: `wbsync-worker:${id}` });
    c.on('error', () => undefined);
    await c.connect();
    const ok = (await c.query<{ ok: boolean }>(`select pg_try_advisory_lock(hashtext('wbsync-worker:' || $1::text)) as ok`, [id])).rows[0]?.ok;
    if (!ok) {
      await c.end().catch(() => undefined);
      throw new WbsyncError('locked', `another process runs as fleet worker ${id}`, { hint: 'give each worker its own --id (and its own --data folder)' });
    }
    c.on('end', () => {
      if (identity === c) identity = null;
    });
    identity = c;
    heldIdentity = true;
  };

  const metrics = new WorkerMetrics(() => ({ postgresUp: Date.now() - postgresOkAt < fleet.workerTtlSeconds * 1000, tenants: tenants.size, running: [...tenants.values()].filter((t) => t.running).length, budget: budget.stats() }));

  const health = (): { httpStatus: number; body: unknown } => {
    const now = Date.now();
    const postgres = now - postgresOkAt < fleet.workerTtlSeconds * 1000;
    const per: Record<string, unknown> = {};
    for (const [name, t] of tenants) {
      const h = t.health();
      per[name] = { epoch: t.epoch, paused: t.paused, running: t.running ? { kind: t.running.kind, since: new Date(t.running.since).toISOString() } : null, ...(h ? { status: (h.body as { status: string }).status, health: h.body } : { status: 'not started', problem: t.problem }) };
    }
    for (const [name, f] of failedStarts) if (!per[name]) per[name] = { status: 'not started', problem: f.message };
    return {
      httpStatus: postgres ? 200 : 503,
      body: { status: postgres ? 'ok' : 'unhealthy', reason: postgres ? null : 'Postgres unreachable', worker: id, capacity, lastHeartbeat: postgresOkAt ? new Date(postgresOkAt).toISOString() : null, tenants: per },
    };
  };

  const handle = async (job: PgBoss.Job<JobData>): Promise<Record<string, unknown>> => {
    const data = job.data;
    const t = tenants.get(data.tenant);
    if (!t) {
      metrics.jobs.inc({ tenant: data.tenant, kind: data.kind, result: 'skipped' });
      return { skipped: 'the tenant is not homed on this worker' };
    }
    try {
      const out = await t.runJob(data, job.id);
      jobs++;
      metrics.jobs.inc({ tenant: data.tenant, kind: data.kind, result: out.skipped ? 'skipped' : out.ok ? 'ok' : 'failed' });
      return out;
    } catch (e) {
      metrics.jobs.inc({ tenant: data.tenant, kind: data.kind, result: 'error' });
      const err = fleetError(e, db.redact, `tenant ${data.tenant}: ${data.kind} job`);
      limited.log('warn', { tenant: data.tenant, kind: data.kind, err: err.message }, 'job failed', `job failed: ${data.tenant}`);
      throw err;
    }
  };

  const send = async (data: JobData): Promise<string | null> => {
    const jobId = await boss!.send(queue, data, { singletonKey: data.tenant, expireInSeconds: JOB_EXPIRE_S, retryLimit: 0 });
    return jobId;
  };

  /** One heartbeat: beat, take tenants, start/stop/update runtimes, reconcile the queue. */
  const tick = async (): Promise<void> => {
    if (!identity) await holdIdentity();
    if (!(await heartbeat(db.pool, id, instance))) {
      throw new WbsyncError('locked', `fleet worker ${id} was registered again by another process`, { hint: 'give each worker its own --id' });
    }
    postgresOkAt = Date.now();
    const taken = await claimTenants(db.pool, id, capacity, fleet.workerTtlSeconds);
    if (taken.length) logger.info({ tenants: taken.map((t) => t.tenant) }, 'tenants taken');
    await mover.tick();
    const homes = await homedOn(db.pool, id);
    const here = new Set(homes.map((h) => h.tenant));
    for (const [name, t] of tenants) {
      const h = homes.find((x) => x.tenant === name);
      if (!h || h.epoch !== t.epoch || h.baseUrl !== t.baseUrl || JSON.stringify(h.config) !== t.configText) {
        tenants.delete(name);
        releaseConsole(name);
        logger.info({ tenant: name, reason: !h ? 'no longer homed here' : 'its home or settings changed' }, 'tenant stopping on this worker');
        // in the background: a long pass must not hold the heartbeat (a worker that stops beating
        // looks gone); the tenant starts again here, if it should, once it has stopped
        leaving.set(name, t.stop({ abort: true }).catch((e: unknown) => logger.warn({ tenant: name, err: String(e) }, 'stopping the tenant failed')).finally(() => leaving.delete(name)));
      }
    }
    for (const h of homes) {
      const t = tenants.get(h.tenant);
      if (t) {
        t.setPaused(h.paused);
        continue;
      }
      const prev = failedStarts.get(h.tenant);
      if ((prev && Date.now() - prev.at < 30_000) || leaving.has(h.tenant)) continue;
      const rt = new TenantRuntime(h, { workerId: id, dataDir, workerConfig: config, logger, pool: db.pool, pgUrl: db.url, redact: db.redact, budget, send, signal: stopping });
      try {
        await mover.arrive(h.tenant);
        rt.start();
        tenants.set(h.tenant, rt);
        failedStarts.delete(h.tenant);
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        failedStarts.set(h.tenant, { at: Date.now(), message });
        logger.error({ tenant: h.tenant, err: message, hint: (e as WbsyncError).hint }, 'tenant could not start on this worker (retried in 30 s)');
      }
    }
    for (const name of failedStarts.keys()) if (!here.has(name)) failedStarts.delete(name);
    await reconcile();
  };

  /** pg-boss's view of this worker's queue against what runs here: an active job nobody runs
   * (a former self's, or one whose end could not be recorded while Postgres was away) is failed,
   * so its tenant's next job can start; a tenant with nothing queued may queue again. */
  const reconcile = async (): Promise<void> => {
    const rows = (await db.pool.query<{ id: string; key: string | null; state: string; started: Date | null }>(`select id, singleton_key as key, state::text as state, started_on as started from ${BOSS_SCHEMA}.job where name = $1 and state in ('created', 'retry', 'active')`, [queue])).rows;
    const runningHere = new Set([...tenants.values()].filter((t) => t.running).map((t) => t.name));
    const stale = rows.filter((r) => r.state === 'active' && r.key !== null && !runningHere.has(r.key) && (!r.started || Date.now() - r.started.getTime() > 5_000)).map((r) => r.id);
    if (stale.length) {
      await boss!.fail(queue, stale);
      logger.info({ jobs: stale.length }, 'stale jobs of this worker failed in the queue');
    }
    const queued = new Set(rows.filter((r) => !stale.includes(r.id)).map((r) => r.key));
    for (const t of tenants.values()) if (!queued.has(t.name)) t.queueEmpty();
    const runIds = [...tenants.values()].map((t) => t.running?.runId).filter((x): x is number => typeof x === 'number');
    await closeOrphanRuns(db.pool, id, runIds);
  };

  // pg-boss 10 completes and fails jobs without awaiting the promise: with Postgres away that is an
  // unhandled rejection, which would end the process. Those are logged (reconcile() fails the job
  // left active once Postgres is back); any other stays fatal.
  const onUnhandled = (reason: unknown): void => {
    const e = reason as Error | undefined;
    const fromQueue = typeof e?.stack === 'string' && /pg-boss|pg-pool/.test(e.stack);
    if (!fromQueue) throw reason;
    limited.log('warn', { err: db.redact(e?.message ?? String(reason)) }, 'job queue write lost (Postgres?): reconciled when it is back', 'boss unhandled');
  };
  process.on('unhandledRejection', onUnhandled);
  try {
    await ensureFleetSchema(db.pool).catch((e: unknown) => {
      throw fleetError(e, db.redact, 'preparing the fleet schema');
    });
    await holdIdentity().catch((e: unknown) => {
      throw fleetError(e, db.redact, 'taking the worker id');
    });
    const { host, port } = parseListen(fleet.listen);
    // the web console under /ui/ (src/fleet/fleet-console.ts), on the daemon's terms
    const mounted = mountFleetConsole({ workerId: id, config, logger, host, dataDir, local: () => [...tenants.values()], status: () => readFleetStatus(db.pool, fleet.workerTtlSeconds) });
    closeConsole = () => mounted.ui?.close();
    releaseConsole = (t) => mounted.ui?.release(t);
    server = await startHealthServer({ host, port, health, tls: mounted.tls, ...(mounted.ui ? { ui: mounted.ui } : {}), metrics: () => metrics.render([...tenants.values()].map((t) => ({ name: t.name, registry: t.metrics.registry }))) });
    await registerWorker(db.pool, { id, capacity, healthUrl: `${mounted.tls ? 'https' : 'http'}://${server.address}`, instance });
    await releaseWorkerSlots(db.pool, id);
    postgresOkAt = Date.now();
    boss = new PgBoss({ connectionString: db.url, schema: BOSS_SCHEMA, max: 4 + concurrency, application_name: `wbsync-boss:${id}`, schedule: false, supervise: true, migrate: true, archiveCompletedAfterSeconds: 3600, deleteAfterDays: 7 });
    boss.on('error', (e: Error) => limited.log('warn', { err: db.redact(e.message ?? String(e)) }, 'job queue error (Postgres?)', 'boss error'));
    await boss.start().catch((e: unknown) => {
      throw fleetError(e, db.redact, 'starting the job queue');
    });
    await createQueues(db.pool, boss, queue).catch((e: unknown) => {
      throw fleetError(e, db.redact, 'creating the job queue');
    });
    logger.info({ worker: id, capacity, concurrency, data: dataDir, address: server.address, pid: process.pid }, 'fleet worker started');
    await tick();
    for (let i = 0; i < concurrency; i++) await boss.work<JobData>(queue, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async ([job]) => handle(job!));

    let lastSweep = 0;
    while (!stopping.aborted) {
      await sleep(fleet.heartbeatSeconds * 1000, stopping);
      if (stopping.aborted) break;
      try {
        await tick();
        if (Date.now() - lastSweep > 30_000) {
          lastSweep = Date.now();
          await sweepBudget(db.pool);
        }
      } catch (e) {
        if (e instanceof WbsyncError && e.code === 'locked') throw e;
        limited.log('warn', { err: db.redact(e instanceof Error ? e.message : String(e)) }, 'heartbeat failed (Postgres?): retrying', 'heartbeat failed');
      }
    }
    logger.info({ reason: String(signal.reason ?? 'signal') }, 'stopping');
    return { jobs };
  } finally {
    stopWorker.abort();
    // no new job is fetched; the ones in flight stop after their module and record their end
    await boss?.offWork(queue).catch(() => undefined);
    await Promise.all([...tenants.values()].map((t) => t.stop().catch(() => undefined)));
    await Promise.all([...leaving.values()]);
    await boss?.stop({ graceful: true, wait: true, timeout: 10_000 }).catch(() => undefined);
    if (heldIdentity) {
      // only the process that was this worker speaks for it (not a twin refused at start)
      await closeOrphanRuns(db.pool, id, []).catch(() => undefined);
      await releaseWorkerSlots(db.pool, id).catch(() => undefined);
    }
    await server?.close().catch(() => undefined);
    closeConsole();
    const c = identity as pg.Client | null;
    identity = null;
    await c?.end().catch(() => undefined);
    mover.close();
    await db.close();
    process.off('unhandledRejection', onUnhandled);
    limited.flush();
    logger.info({ jobs }, 'stopped');
  }
}

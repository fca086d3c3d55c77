// `wbsync fleet worker`: one worker of the fleet. It holds its id (an advisory lock in Postgres, so
// two processes never run as one worker), registers and beats, takes tenants without a home up to
// its capacity, runs each homed tenant (tenant-runtime.ts) and works its own pg-boss queue (one
// per worker, stately: per tenant at most one job waiting and one running), and serves /healthz
// and /metrics labelled by tenant. Postgres may go away: the worker waits for it (heartbeats and
// the queue retry), jobs whose tenant lock is lost stop, and everything resumes when it is back.

import pg from 'pg';
import PgBoss from 'pg-boss';
import { parseListen } from '../config/listen.js';
import { startHealthServer } from '../daemon/health-server.js';
import { WbsyncError } from '../domain/errors.js';
import { releaseWorkerSlots, sweepBudget } from './budget.js';
import { registerWorker } from './homes.js';
import { mountFleetConsole } from './fleet-console.js';
import { fleetError } from './pg.js';
import { closeOrphanRuns } from './runs.js';
import { BOSS_SCHEMA, ensureFleetSchema } from './schema.js';
import { readFleetStatus } from './status.js';
import type { JobData } from './tenant-runtime.js';
import { beat, tick } from './worker-tick.js';
import { handleJob, JOB_EXPIRE_S, openWorkerState, workerHealth, holdIdentity, type FleetWorkerOptions, type WorkerState } from './worker-state.js';

export { queueOf, type FleetWorkerOptions } from './worker-state.js';
export const DEAD_LETTERS = 'wbsync-dead-letters';

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
  const s = openWorkerState(opts);
  // pg-boss 10 completes and fails jobs without awaiting the promise: with Postgres away that is an
  // unhandled rejection, which would end the process. Those are logged (reconcile() fails the job
  // left active once Postgres is back); any other stays fatal.
  const onUnhandled = (reason: unknown): void => {
    const e = reason as Error | undefined;
    const fromQueue = typeof e?.stack === 'string' && /pg-boss|pg-pool/.test(e.stack);
    if (!fromQueue) throw reason;
    s.limited.log('warn', { err: s.db.redact(e?.message ?? String(reason)) }, 'job queue write lost (Postgres?): reconciled when it is back', 'boss unhandled');
  };
  process.on('unhandledRejection', onUnhandled);
  try {
    await startWorker(s);
    await runUntilStopped(s);
    s.logger.info({ reason: String(s.signal.reason ?? 'signal') }, 'stopping');
    return { jobs: s.jobs };
  } finally {
    await closeWorker(s);
    process.off('unhandledRejection', onUnhandled);
    s.limited.flush();
    s.logger.info({ jobs: s.jobs }, 'stopped');
  }
}

/** Schema, identity, listener (health, metrics, console), registration (a first heartbeat), job
 * queue. */
async function startWorker(s: WorkerState): Promise<void> {
  const { db, fleet, id, capacity, concurrency, queue, logger } = s;
  await ensureFleetSchema(db.pool).catch((e: unknown) => {
    throw fleetError(e, db.redact, 'preparing the fleet schema');
  });
  await holdIdentity(s).catch((e: unknown) => {
    throw fleetError(e, db.redact, 'taking the worker id');
  });
  const { host, port } = parseListen(fleet.listen);
  // the web console under /ui/ (src/fleet/fleet-console.ts), on the daemon's terms
  const mounted = mountFleetConsole({ workerId: id, config: s.config, logger, host, dataDir: s.dataDir, local: () => [...s.tenants.values()], status: () => readFleetStatus(db.pool, fleet.workerTtlSeconds, s.config.freshness.maxStalenessMinutes) });
  s.ui = mounted.ui;
  s.server = await startHealthServer({ host, port, health: () => workerHealth(s), tls: mounted.tls, ...(mounted.ui ? { ui: mounted.ui } : {}), metrics: () => s.metrics.render([...s.tenants.values()].map((t) => ({ name: t.name, registry: t.metrics.registry }))) });
  await registerWorker(db.pool, { id, capacity, healthUrl: `${mounted.tls ? 'https' : 'http'}://${s.server.address}`, instance: s.instance });
  await releaseWorkerSlots(db.pool, id);
  s.postgresOkAt = Date.now();
  const boss = new PgBoss({ connectionString: db.url, schema: BOSS_SCHEMA, max: 4 + concurrency, application_name: `wbsync-boss:${id}`, schedule: false, supervise: true, migrate: true, archiveCompletedAfterSeconds: 3600, deleteAfterDays: 7 });
  s.boss = boss;
  boss.on('error', (e: Error) => s.limited.log('warn', { err: db.redact(e.message ?? String(e)) }, 'job queue error (Postgres?)', 'boss error'));
  await boss.start().catch((e: unknown) => {
    throw fleetError(e, db.redact, 'starting the job queue');
  });
  await createQueues(db.pool, boss, queue).catch((e: unknown) => {
    throw fleetError(e, db.redact, 'creating the job queue');
  });
  logger.info({ worker: id, capacity, concurrency, data: s.dataDir, address: s.server.address, pid: process.pid }, 'fleet worker started');
}

/**
 * Two loops until the worker stops. The heartbeat (and a sweep of the shared budget every 30 s),
 * every fleet.heartbeatSeconds whatever the work is doing: a round that copies a large database for
 * minutes must not make the worker look gone (`fleet status`, drain, adopt judge it by its
 * heartbeat). And the work: a first round, then the queue's workers, then a round every
 * fleet.heartbeatSeconds after the last one ended (one round at a time: never two copies or
 * arrivals at once). Postgres away only delays both. Stopping waits for the round in flight (if
 * any) to end, beating meanwhile; a lost worker id (another process beats for it now) ends the
 * heartbeat at once and the worker after that round.
 */
async function runUntilStopped(s: WorkerState): Promise<void> {
  const workEnded = new AbortController();
  let lost: unknown = null;
  const beats = (async () => {
    let lastSweep = 0;
    while (!workEnded.signal.aborted) {
      try {
        await beat(s);
        if (Date.now() - lastSweep > 30_000) {
          lastSweep = Date.now();
          await sweepBudget(s.db.pool);
        }
      } catch (e) {
        if (e instanceof WbsyncError && e.code === 'locked') {
          lost = e;
          s.stopWorker.abort(e.message);
          return;
        }
        s.limited.log('warn', { err: s.db.redact(e instanceof Error ? e.message : String(e)) }, 'heartbeat failed (Postgres?): retrying', 'heartbeat failed');
      }
      await sleep(s.fleet.heartbeatSeconds * 1000, workEnded.signal);
    }
  })();
  try {
    await tick(s);
    for (let i = 0; i < s.concurrency; i++) await s.boss!.work<JobData>(s.queue, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async ([job]) => handleJob(s, job!));
    while (!s.stopping.aborted) {
      await sleep(s.fleet.heartbeatSeconds * 1000, s.stopping);
      if (s.stopping.aborted) break;
      try {
        await tick(s);
      } catch (e) {
        s.limited.log('warn', { err: s.db.redact(e instanceof Error ? e.message : String(e)) }, 'worker round failed (Postgres?): retrying', 'tick failed');
      }
    }
  } finally {
    workEnded.abort();
    await beats;
  }
  if (lost) throw lost;
}

/** Stops the queue, the tenants (each after its current module), the listener and the console; gives
 * up the worker's slots and id; closes Postgres. */
async function closeWorker(s: WorkerState): Promise<void> {
  s.stopWorker.abort();
  // no new job is fetched; the ones in flight stop after their module and record their end
  await s.boss?.offWork(s.queue).catch(() => undefined);
  await Promise.all([...s.tenants.values()].map((t) => t.stop().catch(() => undefined)));
  await Promise.all([...s.leaving.values()]);
  await s.boss?.stop({ graceful: true, wait: true, timeout: 10_000 }).catch(() => undefined);
  if (s.heldIdentity) {
    // only the process that was this worker speaks for it (not a twin refused at start)
    await closeOrphanRuns(s.db.pool, s.id, []).catch(() => undefined);
    await releaseWorkerSlots(s.db.pool, s.id).catch(() => undefined);
  }
  await s.server?.close().catch(() => undefined);
  s.ui?.close();
  const c = s.identity as pg.Client | null;
  s.identity = null;
  await c?.end().catch(() => undefined);
  s.mover.close();
  await s.db.close();
}

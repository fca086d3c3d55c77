// A fleet worker's heartbeat (its id held, its row beaten) and one round of its work (src/fleet/
// worker.ts): take tenants, stop the ones that left or changed, start the ones homed here, and square
// pg-boss's view of the queue with what runs here. The two run on loops of their own: a round may
// wait minutes on a copy (a move, a periodic fleet copy, an arrival), the heartbeat never does.

import { WbsyncError } from '../domain/errors.js';
import { claimTenants, heartbeat, homedOn } from './homes.js';
import { closeOrphanRuns } from './runs.js';
import { BOSS_SCHEMA } from './schema.js';
import { TenantRuntime } from './tenant-runtime.js';
import { holdIdentity, sendJob, type WorkerState } from './worker-state.js';

type Home = Awaited<ReturnType<typeof homedOn>>[number];

/** One heartbeat: the worker's id held (taken again after Postgres was away), its row's heartbeat
 * written. Throws 'locked' when another process runs as this worker (this one must stop). Runs on a
 * timer of its own (worker.ts), never behind the tick's copies and moves. */
export async function beat(s: WorkerState): Promise<void> {
  if (!s.identity) await holdIdentity(s);
  if (!(await heartbeat(s.db.pool, s.id, s.instance))) {
    throw new WbsyncError('locked', `fleet worker ${s.id} was registered again by another process`, { hint: 'give each worker its own --id' });
  }
  s.postgresOkAt = Date.now();
}

/** One round of the worker's work: take tenants, moves and copies, start/stop/update runtimes,
 * reconcile the queue. Skipped while the worker's id is not held (the heartbeat takes it again). */
export async function tick(s: WorkerState): Promise<void> {
  if (!s.identity || s.stopping.aborted) return;
  const taken = await claimTenants(s.db.pool, s.id, s.capacity, s.fleet.workerTtlSeconds);
  if (taken.length) s.logger.info({ tenants: taken.map((t) => t.tenant) }, 'tenants taken');
  await s.mover.tick();
  // stopping (a signal, or this worker's id taken by another process) while that copied: no more
  if (s.stopping.aborted) return;
  const homes = await homedOn(s.db.pool, s.id);
  stopDepartedTenants(s, homes);
  await startHomedTenants(s, homes);
  const here = new Set(homes.map((h) => h.tenant));
  for (const name of s.failedStarts.keys()) if (!here.has(name)) s.failedStarts.delete(name);
  await reconcile(s);
}

/** Stops (in the background) each tenant running here that is no longer homed here, or whose home or
 * settings changed. */
function stopDepartedTenants(s: WorkerState, homes: Home[]): void {
  for (const [name, t] of s.tenants) {
    const h = homes.find((x) => x.tenant === name);
    if (!h || h.epoch !== t.epoch || h.baseUrl !== t.baseUrl || JSON.stringify(h.config) !== t.configText) {
      s.tenants.delete(name);
      s.ui?.release(name);
      s.logger.info({ tenant: name, reason: !h ? 'no longer homed here' : 'its home or settings changed' }, 'tenant stopping on this worker');
      // in the background: a long pass must not hold the next round; the tenant starts again here,
      // if it should, once it has stopped
      s.leaving.set(name, t.stop({ abort: true }).catch((e: unknown) => s.logger.warn({ tenant: name, err: String(e) }, 'stopping the tenant failed')).finally(() => s.leaving.delete(name)));
    }
  }
}

/** Updates the tenants running here (paused or not) and starts the others homed here, unless one
 * failed to start in the last 30 s or is still stopping. */
async function startHomedTenants(s: WorkerState, homes: Home[]): Promise<void> {
  for (const h of homes) {
    if (s.stopping.aborted) return; // an arrival may have taken minutes
    const t = s.tenants.get(h.tenant);
    if (t) {
      t.setPaused(h.paused);
      continue;
    }
    const prev = s.failedStarts.get(h.tenant);
    if ((prev && Date.now() - prev.at < 30_000) || s.leaving.has(h.tenant)) continue;
    const rt = new TenantRuntime(h, { workerId: s.id, dataDir: s.dataDir, workerConfig: s.config, logger: s.logger, pool: s.db.pool, pgUrl: s.db.url, redact: s.db.redact, budget: s.budget, send: (data) => sendJob(s, data), signal: s.stopping });
    try {
      await s.mover.arrive(h.tenant);
      rt.start();
      s.tenants.set(h.tenant, rt);
      s.failedStarts.delete(h.tenant);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      s.failedStarts.set(h.tenant, { at: Date.now(), message });
      s.logger.error({ tenant: h.tenant, err: message, hint: (e as WbsyncError).hint }, 'tenant could not start on this worker (retried in 30 s)');
    }
  }
}

/** pg-boss's view of this worker's queue against what runs here: an active job nobody runs
 * (a former self's, or one whose end could not be recorded while Postgres was away) is failed,
 * so its tenant's next job can start; a tenant with nothing queued may queue again. */
async function reconcile(s: WorkerState): Promise<void> {
  const { db, queue, tenants } = s;
  const rows = (await db.pool.query<{ id: string; key: string | null; state: string; started: Date | null }>(`select id, singleton_key as key, state::text as state, started_on as started from ${BOSS_SCHEMA}.job where name = $1 and state in ('created', 'retry', 'active')`, [queue])).rows;
  const runningHere = new Set([...tenants.values()].filter((t) => t.running).map((t) => t.name));
  const stale = rows.filter((r) => r.state === 'active' && r.key !== null && !runningHere.has(r.key) && (!r.started || Date.now() - r.started.getTime() > 5_000)).map((r) => r.id);
  if (stale.length) {
    await s.boss!.fail(queue, stale);
    s.logger.info({ jobs: stale.length }, 'stale jobs of this worker failed in the queue');
  }
  const queued = new Set(rows.filter((r) => !stale.includes(r.id)).map((r) => r.key));
  for (const t of tenants.values()) if (!queued.has(t.name)) t.queueEmpty();
  const runIds = [...tenants.values()].map((t) => t.running?.runId).filter((x): x is number => typeof x === 'number');
  await closeOrphanRuns(db.pool, s.id, runIds, [...runningHere]);
}


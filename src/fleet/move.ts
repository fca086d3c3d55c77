// Moving tenants between workers with their history. A move is a row of `moves`:
//   requested  — by `fleet drain` (from a worker) or by a worker that joined with room (rebalance);
//   copied     — the old home stopped the tenant between passes, wrote a fleet copy, and in ONE
//                transaction (still home at its epoch) re-homed the tenant with a new epoch, so
//                the old home is fenced from then on;
//   adopted    — `fleet adopt`: the home (gone past its TTL) replaced by the latest fleet copy;
//   done       — the new home placed the copy (SHA-256 and verify checked) before starting it;
//   failed     — with the reason.
// Never two homes: the home is one row, changed only with the epoch check; a tenant is started only
// where it is homed, after its copy is in place.

import type pg from 'pg';
import { WbsyncError } from '../domain/errors.js';
import { listFleetCopies, placeFleetCopy, writeFleetCopy, type ListedCopy } from './copy.js';
import type { FleetCopySettings } from './copy-settings.js';
import { rehome } from './homes.js';
import { inTransaction } from './pg.js';
import { FLEET_SCHEMA as S } from './schema.js';

type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;
export type MoveState = 'requested' | 'copied' | 'adopted' | 'done' | 'failed';
const OPEN = `('requested', 'copied', 'adopted')`;

export interface MoveRow {
  id: number;
  tenant: string;
  from: string | null;
  to: string | null;
  copyKey: string | null;
  snapshotId: number | null;
  state: MoveState;
  startedAt: string;
  finishedAt: string | null;
  error: string | null;
}

const COLUMNS = `id, tenant, from_worker, to_worker, copy_key, snapshot_id, state, started_at, finished_at, error`;
type Raw = { id: string; tenant: string; from_worker: string | null; to_worker: string | null; copy_key: string | null; snapshot_id: string | null; state: MoveState; started_at: Date; finished_at: Date | null; error: string | null };
const toRow = (r: Raw): MoveRow => ({
  id: Number(r.id),
  tenant: r.tenant,
  from: r.from_worker,
  to: r.to_worker,
  copyKey: r.copy_key,
  snapshotId: r.snapshot_id === null ? null : Number(r.snapshot_id),
  state: r.state,
  startedAt: r.started_at.toISOString(),
  finishedAt: r.finished_at?.toISOString() ?? null,
  error: r.error,
});

export async function movesOf(db: Queryable, tenants?: string[]): Promise<MoveRow[]> {
  const r = await db.query<Raw>(`select ${COLUMNS} from ${S}.moves ${tenants ? 'where tenant = any($1)' : ''} order by id`, tenants ? [tenants] : []);
  return r.rows.map(toRow);
}

/** Live workers (heartbeat within `ttlSeconds`), not draining, with their room (capacity − homes − moves on the way). */
export async function workersWithRoom(db: Queryable, ttlSeconds: number, except: string | null): Promise<Array<{ id: string; room: number }>> {
  const r = await db.query<{ id: string; room: number }>(
    `select w.id, (w.capacity - (select count(*) from ${S}.homes h where h.worker = w.id)
                   - (select count(*) from ${S}.moves m where m.to_worker = w.id and m.state = 'requested'))::int as room
       from ${S}.workers w
      where w.heartbeat_at > now() - make_interval(secs => $1) and not w.draining and w.id is distinct from $2
      order by room desc, w.id`,
    [ttlSeconds, except],
  );
  return r.rows.filter((w) => w.room > 0);
}

export interface DrainResult {
  worker: string;
  alive: boolean;
  heartbeatAgeSeconds: number;
  requested: MoveRow[];
  open: MoveRow[];
}

/** Marks the worker draining (it takes no tenant) and requests a move of each tenant homed on it. */
export async function requestDrain(pool: pg.Pool, worker: string, ttlSeconds: number): Promise<DrainResult> {
  return inTransaction(pool, async (c) => {
    const w = await c.query<{ age: number }>(`update ${S}.workers set draining = true where id = $1 returning extract(epoch from now() - heartbeat_at)::float8 as age`, [worker]);
    if (!w.rows[0]) {
      const known = (await c.query<{ id: string }>(`select id from ${S}.workers order by id`)).rows.map((x) => x.id);
      throw new WbsyncError('usage', `no worker ${JSON.stringify(worker)} in the fleet`, { hint: known.length ? `workers: ${known.join(', ')}` : 'no worker has registered yet' });
    }
    const requested = await c.query<Raw>(
      `insert into ${S}.moves(tenant, from_worker, state)
       select h.tenant, h.worker, 'requested' from ${S}.homes h
        where h.worker = $1 and not exists (select 1 from ${S}.moves m where m.tenant = h.tenant and m.state in ${OPEN})
        order by h.tenant
       returning ${COLUMNS}`,
      [worker],
    );
    const open = await c.query<Raw>(`select ${COLUMNS} from ${S}.moves where from_worker = $1 and state in ${OPEN} order by id`, [worker]);
    const age = w.rows[0].age;
    return { worker, alive: age < ttlSeconds, heartbeatAgeSeconds: Math.round(age), requested: requested.rows.map(toRow), open: open.rows.map(toRow) };
  });
}

/** Lets a drained worker take tenants again. */
export async function undrain(pool: pg.Pool, worker: string): Promise<boolean> {
  const r = await pool.query(`update ${S}.workers set draining = false where id = $1`, [worker]);
  return (r.rowCount ?? 0) === 1;
}

export interface AdoptResult {
  tenant: string;
  from: string;
  to: string;
  epoch: number;
  copy: ListedCopy;
  /** The old home's runs that finished after the copy was taken: lost with its volume. */
  lostRuns: number;
  lastRunAt: string | null;
  /** From when the service's history is missing in the copy (its newest snapshot) until the adopter's first (full) pass. */
  gapSince: string | null;
}

/** `fleet adopt`: the tenant's home has gone (heartbeat past the TTL): its latest fleet copy is
 * homed on `to` (a new epoch fences the old home should it come back). */
export async function adoptTenant(pool: pg.Pool, copies: FleetCopySettings, tenant: string, to: string, ttlSeconds: number): Promise<AdoptResult> {
  const latest = (await listFleetCopies(copies.objects, tenant, copies.root)).at(-1);
  return inTransaction(pool, async (c) => {
    await c.query(`select pg_advisory_xact_lock(hashtext('wbsync:move:' || $1))`, [tenant]);
    const home = await c.query<{ worker: string; age: number }>(
      `select h.worker, extract(epoch from now() - w.heartbeat_at)::float8 as age from ${S}.homes h join ${S}.workers w on w.id = h.worker where h.tenant = $1 for update of h`,
      [tenant],
    );
    const h = home.rows[0];
    if (!h) {
      const exists = await c.query(`select 1 from ${S}.tenants where name = $1`, [tenant]);
      if (!exists.rowCount) throw new WbsyncError('usage', `no tenant ${JSON.stringify(tenant)} in the fleet`, { hint: "see 'wbsync fleet tenant list'" });
      throw new WbsyncError('usage', `tenant ${tenant} has no home yet: a worker with room takes it at its next heartbeat`, { hint: "see 'wbsync fleet status'" });
    }
    if (h.worker === to) throw new WbsyncError('usage', `tenant ${tenant} is already homed on ${to}`);
    if (h.age < ttlSeconds) {
      throw new WbsyncError('restore_refused', `tenant ${tenant}'s home ${h.worker} is alive (heartbeat ${Math.round(h.age)} s ago, within fleet.workerTtlSeconds ${ttlSeconds}): adopting would lose what it has not copied yet`, {
        hint: `move it with its history instead: wbsync fleet drain ${h.worker}`,
      });
    }
    const target = await c.query<{ alive: boolean; draining: boolean }>(`select heartbeat_at > now() - make_interval(secs => $2) as alive, draining from ${S}.workers where id = $1`, [to, ttlSeconds]);
    if (!target.rows[0]) throw new WbsyncError('usage', `no worker ${JSON.stringify(to)} in the fleet`, { hint: "see 'wbsync fleet status'" });
    if (!target.rows[0].alive) throw new WbsyncError('usage', `worker ${to} is not alive (no heartbeat within ${ttlSeconds} s)`, { hint: 'adopt onto a running worker' });
    if (target.rows[0].draining) throw new WbsyncError('usage', `worker ${to} is draining`, { hint: 'adopt onto a worker that takes tenants' });
    if (!latest) {
      throw new WbsyncError('restore_refused', `no fleet copy of tenant ${tenant} at ${copies.objects.where}: adopting would start it with no history`, {
        hint: `bring ${h.worker} back with its volume (it keeps its tenants), or remove and re-add the tenant to start afresh`,
      });
    }
    const epoch = await rehome(c, tenant, to, h.worker);
    if (epoch === null) throw new WbsyncError('internal', `tenant ${tenant} changed home while being adopted`);
    await c.query(`update ${S}.moves set state = 'failed', error = 'superseded by fleet adopt', finished_at = now() where tenant = $1 and state in ${OPEN}`, [tenant]);
    await c.query(`insert into ${S}.moves(tenant, from_worker, to_worker, copy_key, snapshot_id, state) values ($1, $2, $3, $4, $5, 'adopted')`, [tenant, h.worker, to, latest.manifestKey, latest.snapshot]);
    const lost = await c.query<{ n: number; last: Date | null }>(
      `select count(*)::int as n, max(finished_at) as last from ${S}.runs where tenant = $1 and worker = $2 and ok and finished_at > $3::timestamptz and kind in ('incremental', 'full')`,
      [tenant, h.worker, latest.takenAt],
    );
    return { tenant, from: h.worker, to, epoch, copy: latest, lostRuns: lost.rows[0]!.n, lastRunAt: lost.rows[0]!.last?.toISOString() ?? null, gapSince: latest.snapshotAt };
  });
}

// Workers and homes in Postgres: a worker registers and beats; it takes tenants without a home up
// to its capacity (each tenant has exactly one home: the primary key of homes), a fair share at a
// time so workers starting together split the tenants; every job is fenced by (worker, epoch):
// moving a tenant gives its home a new epoch, and the old home's job neither starts nor records
// its end as the tenant's.

import type pg from 'pg';
import { FLEET_SCHEMA as S } from './schema.js';

export const WORKER_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

export interface HomedTenant {
  tenant: string;
  epoch: number;
  baseUrl: string;
  config: Record<string, unknown>;
  paused: boolean;
}

type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

export async function registerWorker(pool: Queryable, w: { id: string; capacity: number; healthUrl: string | null; instance: string }): Promise<void> {
  await pool.query(
    `insert into ${S}.workers(id, capacity, heartbeat_at, started_at, health_url, instance) values ($1, $2, now(), now(), $3, $4)
     on conflict (id) do update set capacity = $2, heartbeat_at = now(), started_at = now(), health_url = $3, instance = $4`,
    [w.id, w.capacity, w.healthUrl, w.instance],
  );
}

/** false when another process registered under this worker's id since (this one must stop). */
export async function heartbeat(pool: Queryable, id: string, instance: string): Promise<boolean> {
  const r = await pool.query(`update ${S}.workers set heartbeat_at = now() where id = $1 and instance = $2`, [id, instance]);
  return (r.rowCount ?? 0) === 1;
}

/**
 * Takes tenants that have no home, up to the worker's room, and at most a fair share of them per
 * call (the homeless divided by the live workers that are not draining), so that workers starting
 * together each take some. Returns the tenants taken.
 */
export async function claimTenants(pool: Queryable, worker: string, capacity: number, liveWithinSeconds: number): Promise<Array<{ tenant: string; epoch: number }>> {
  const r = await pool.query<{ tenant: string; epoch: string }>(
    `with me as (select count(*)::int as mine from ${S}.homes where worker = $1),
          live as (select greatest(1, count(*))::int as n from ${S}.workers where heartbeat_at > now() - make_interval(secs => $3) and not draining and capacity > 0),
          homeless as (select t.name, t.created_at from ${S}.tenants t where not exists (select 1 from ${S}.homes h where h.tenant = t.name)),
          share as (select least(greatest(0, $2 - (select mine from me)), ceil((select count(*) from homeless)::numeric / (select n from live))::int) as k)
     insert into ${S}.homes(tenant, worker, epoch, since)
     select h.name, $1, nextval('${S}.home_epoch'), now() from homeless h
     where not exists (select 1 from ${S}.workers w where w.id = $1 and w.draining)
     order by h.created_at, h.name
     limit (select k from share)
     on conflict (tenant) do nothing
     returning tenant, epoch`,
    [worker, capacity, liveWithinSeconds],
  );
  return r.rows.map((x) => ({ tenant: x.tenant, epoch: Number(x.epoch) }));
}

export async function homedOn(pool: Queryable, worker: string): Promise<HomedTenant[]> {
  const r = await pool.query<{ tenant: string; epoch: string; base_url: string; config: Record<string, unknown>; paused: boolean }>(
    `select h.tenant, h.epoch, t.base_url, t.config, t.paused from ${S}.homes h join ${S}.tenants t on t.name = h.tenant where h.worker = $1 order by h.tenant`,
    [worker],
  );
  return r.rows.map((x) => ({ tenant: x.tenant, epoch: Number(x.epoch), baseUrl: x.base_url, config: x.config, paused: x.paused }));
}

/** Within a transaction: true when the tenant's home is still (worker, epoch); the row is share-locked
 * until the transaction ends, so a move waits for what this transaction records. */
export async function stillHome(c: pg.PoolClient, tenant: string, worker: string, epoch: number): Promise<boolean> {
  const r = await c.query(`select 1 from ${S}.homes where tenant = $1 and worker = $2 and epoch = $3 for share`, [tenant, worker, epoch]);
  return (r.rowCount ?? 0) === 1;
}

/** Moves a tenant's home to `to` with a new epoch (f36-move: drain, rebalance, adopt). Returns the
 * new epoch, or null when the tenant has no home or is not homed on `from` (when given). */
export async function rehome(c: Queryable, tenant: string, to: string, from?: string): Promise<number | null> {
  const r = await c.query<{ epoch: string }>(
    `update ${S}.homes set worker = $2, epoch = nextval('${S}.home_epoch'), since = now() where tenant = $1 and ($3::text is null or worker = $3) returning epoch`,
    [tenant, to, from ?? null],
  );
  return r.rows[0] ? Number(r.rows[0].epoch) : null;
}

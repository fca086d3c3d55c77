// The fleet's schema in Postgres (schema wbsync_fleet): a numbered list of steps, applied in order,
// each in a transaction under an advisory lock, so workers and the CLI starting together migrate it
// once. A step is never edited once released: a change is a new step at the end.

import type pg from 'pg';
import { WbsyncError } from '../domain/errors.js';
import { inTransaction } from './pg.js';

export const FLEET_SCHEMA = 'wbsync_fleet';
/** pg-boss keeps its own tables in this schema. */
export const BOSS_SCHEMA = 'wbsync_boss';

const S = FLEET_SCHEMA;

export const MIGRATIONS: readonly string[] = [
  // 1: tenants, workers, homes (one per tenant, fenced by epoch), runs, moves, the shared budget
  `
  create sequence ${S}.home_epoch;
  create table ${S}.tenants (
    name text primary key check (name ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
    base_url text not null check (base_url ~ '^https?://'),
    config jsonb not null default '{}'::jsonb,
    paused boolean not null default false,
    created_at timestamptz not null default now()
  );
  create table ${S}.workers (
    id text primary key check (id ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$'),
    capacity int not null check (capacity >= 0),
    heartbeat_at timestamptz not null,
    started_at timestamptz not null,
    draining boolean not null default false,
    health_url text,
    instance text
  );
  create table ${S}.homes (
    tenant text primary key references ${S}.tenants(name) on delete cascade,
    worker text not null references ${S}.workers(id),
    epoch bigint not null,
    since timestamptz not null default now()
  );
  create index homes_worker on ${S}.homes(worker);
  create table ${S}.runs (
    id bigserial primary key,
    tenant text not null references ${S}.tenants(name) on delete cascade,
    worker text not null,
    epoch bigint not null,
    kind text not null,
    reason text,
    job_id text,
    started_at timestamptz not null default now(),
    finished_at timestamptz,
    ok boolean,
    error text,
    snapshot_id bigint,
    details jsonb
  );
  create index runs_tenant on ${S}.runs(tenant, id desc);
  create table ${S}.moves (
    id bigserial primary key,
    tenant text not null references ${S}.tenants(name) on delete cascade,
    from_worker text,
    to_worker text,
    copy_key text,
    snapshot_id bigint,
    state text not null,
    started_at timestamptz not null default now(),
    finished_at timestamptz,
    error text
  );
  create index moves_tenant on ${S}.moves(tenant, id desc);
  create table ${S}.services (
    base_url text primary key,
    requests_per_second double precision check (requests_per_second >= 1),
    in_flight int check (in_flight >= 1)
  );
  create table ${S}.budget_slots (
    id bigserial primary key,
    base_url text not null,
    worker text not null,
    acquired_at timestamptz not null,
    expires_at timestamptz not null,
    released_at timestamptz
  );
  create index budget_slots_recent on ${S}.budget_slots(base_url, acquired_at);
  create index budget_slots_open on ${S}.budget_slots(base_url) where released_at is null;
  `,
  // 2: the budget's acquisition, atomic per service (the services row is the lock): a slot when
  // fewer than in_flight are open and fewer than requests_per_second began in the last second,
  // else how long to wait (ms) before asking again.
  `
  create function ${S}.budget_acquire(p_base_url text, p_worker text, p_rps double precision, p_in_flight int, p_ttl_s double precision)
  returns table (slot bigint, wait_ms int) language plpgsql as $$
  declare
    v_rps double precision; v_in_flight int; v_open int; v_recent int; v_now timestamptz; v_edge timestamptz;
  begin
    insert into ${S}.services(base_url) values (p_base_url) on conflict do nothing;
    select coalesce(s.requests_per_second, p_rps), coalesce(s.in_flight, p_in_flight) into v_rps, v_in_flight
      from ${S}.services s where s.base_url = p_base_url for update;
    v_now := clock_timestamp();
    select count(*) into v_open from ${S}.budget_slots b
      where b.base_url = p_base_url and b.released_at is null and b.expires_at > v_now;
    if v_open >= v_in_flight then
      return query select null::bigint, 10;
      return;
    end if;
    select count(*) into v_recent from ${S}.budget_slots b
      where b.base_url = p_base_url and b.acquired_at > v_now - interval '1 second';
    if v_recent >= floor(v_rps) then
      select b.acquired_at into v_edge from ${S}.budget_slots b
        where b.base_url = p_base_url and b.acquired_at > v_now - interval '1 second'
        order by b.acquired_at offset (v_recent - floor(v_rps))::int limit 1;
      return query select null::bigint, greatest(1, ceil(extract(epoch from (v_edge + interval '1 second' - v_now)) * 1000)::int);
      return;
    end if;
    return query insert into ${S}.budget_slots(base_url, worker, acquired_at, expires_at)
      values (p_base_url, p_worker, v_now, v_now + make_interval(secs => p_ttl_s)) returning id, 0;
  end $$;
  `,
];

/** Creates or brings the schema up to date; safe to call from many processes at once. */
export async function ensureFleetSchema(pool: pg.Pool): Promise<{ applied: number; version: number }> {
  return inTransaction(pool, async (c) => {
    await c.query(`select pg_advisory_xact_lock(hashtext('wbsync:fleet-schema'))`);
    await c.query(`create schema if not exists ${S}`);
    await c.query(`create table if not exists ${S}.schema_version (version int not null)`);
    const row = await c.query<{ version: number }>(`select version from ${S}.schema_version`);
    let version = row.rows[0]?.version ?? 0;
    if (version > MIGRATIONS.length) {
      throw new WbsyncError('config', `the fleet's schema in Postgres is at version ${version}, newer than this wbsync knows (${MIGRATIONS.length})`, {
        hint: 'run the same wbsync version on every worker and for the fleet commands (upgrade this one)',
      });
    }
    if (!row.rows.length) await c.query(`insert into ${S}.schema_version(version) values (0)`);
    let applied = 0;
    for (let i = version; i < MIGRATIONS.length; i++) {
      await c.query(MIGRATIONS[i]!);
      applied++;
    }
    if (applied) {
      version = MIGRATIONS.length;
      await c.query(`update ${S}.schema_version set version = $1`, [version]);
    }
    return { applied, version };
  });
}

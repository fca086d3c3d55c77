// What `wbsync fleet status` shows: every tenant with its home, its last pass and result, how
// fresh its last successful pass is, failures since; every worker with its heartbeat; every
// service's budget.

import { shown } from '../domain/display-text.js';
import type pg from 'pg';
import { listServiceBudgets, type ServiceBudget } from './budget.js';
import { FLEET_SCHEMA as S } from './schema.js';
import { tenantProblems } from './status-verdict.js';

export interface TenantStatus {
  name: string;
  baseUrl: string;
  paused: boolean;
  home: { worker: string; epoch: number; since: string; workerLive: boolean } | null;
  running: { kind: string; since: string } | null;
  lastPass: { kind: string; startedAt: string; finishedAt: string; ok: boolean | null; error: string | null; snapshot: number | null } | null;
  lastSuccess: string | null;
  /** Seconds since the last successful pass finished (null: none yet). */
  freshnessSeconds: number | null;
  /** Failed jobs since the last successful pass. */
  failuresSinceSuccess: number;
  passes: number;
  /** When it was added to the registry. */
  addedAt: string;
  /** Its freshness bound: freshness.maxStalenessMinutes (its own setting, else the fleet's), in seconds. */
  freshnessBoundSeconds: number;
  /** Why it is failing (status-verdict.ts); empty when it is not. */
  problems: string[];
}

export interface WorkerStatus {
  id: string;
  capacity: number;
  tenants: number;
  heartbeatAt: string;
  heartbeatAgeSeconds: number;
  live: boolean;
  draining: boolean;
  healthUrl: string | null;
}

export interface FleetStatus {
  at: string;
  tenants: TenantStatus[];
  workers: WorkerStatus[];
  services: ServiceBudget[];
  /** Tenants with a problem (exit 5). */
  failing: number;
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** @param maxStalenessMinutes the fleet's freshness.maxStalenessMinutes (a tenant's own setting overrides it); no default, so no reader can forget the configured one */
export async function readFleetStatus(pool: pg.Pool, workerTtlSeconds: number, maxStalenessMinutes: number): Promise<FleetStatus> {
  const now = (await pool.query<{ now: Date }>('select now() as now')).rows[0]!.now;
  const t = await pool.query<{
    name: string; base_url: string; paused: boolean; worker: string | null; epoch: string | null; since: Date | null; worker_live: boolean | null;
    cur_kind: string | null; cur_started: Date | null;
    last_kind: string | null; last_started: Date | null; last_finished: Date | null; last_ok: boolean | null; last_error: string | null; last_snapshot: string | null;
    last_success: Date | null; failures: string; passes: string; created_at: Date; own_staleness: unknown;
  }>(
    `select t.name, t.base_url, t.paused, t.created_at, t.config->'freshness'->'maxStalenessMinutes' as own_staleness, h.worker, h.epoch, h.since,
       (w.heartbeat_at > now() - make_interval(secs => $1)) as worker_live,
       cur.kind as cur_kind, cur.started_at as cur_started,
       last.kind as last_kind, last.started_at as last_started, last.finished_at as last_finished, last.ok as last_ok, last.error as last_error, last.snapshot_id as last_snapshot,
       ok.finished_at as last_success,
       (select count(*) from ${S}.runs r where r.tenant = t.name and r.ok = false and r.id > coalesce(ok.id, 0)) as failures,
       (select count(*) from ${S}.runs r where r.tenant = t.name and r.kind in ('full', 'incremental') and r.finished_at is not null) as passes
     from ${S}.tenants t
     left join ${S}.homes h on h.tenant = t.name
     left join ${S}.workers w on w.id = h.worker
     left join lateral (select kind, started_at from ${S}.runs r where r.tenant = t.name and r.finished_at is null order by r.id desc limit 1) cur on true
     left join lateral (select * from ${S}.runs r where r.tenant = t.name and r.kind in ('full', 'incremental') and r.finished_at is not null order by r.id desc limit 1) last on true
     left join lateral (select id, finished_at from ${S}.runs r where r.tenant = t.name and r.kind in ('full', 'incremental') and r.ok order by r.id desc limit 1) ok on true
     order by t.name`,
    [workerTtlSeconds],
  );
  const w = await pool.query<{ id: string; capacity: number; heartbeat_at: Date; draining: boolean; health_url: string | null; tenants: string }>(
    `select w.*, (select count(*) from ${S}.homes h where h.worker = w.id) as tenants from ${S}.workers w order by w.id`,
  );
  const tenants = t.rows.map((r) => {
    const bound = Math.round(60 * (typeof r.own_staleness === 'number' && r.own_staleness > 0 ? r.own_staleness : maxStalenessMinutes));
    const tenant = {
      name: r.name,
      baseUrl: r.base_url,
      paused: r.paused,
      home: r.worker ? { worker: r.worker, epoch: Number(r.epoch), since: iso(r.since)!, workerLive: r.worker_live === true } : null,
      running: r.cur_kind ? { kind: r.cur_kind, since: iso(r.cur_started)! } : null,
      lastPass: r.last_kind ? { kind: r.last_kind, startedAt: iso(r.last_started)!, finishedAt: iso(r.last_finished)!, ok: r.last_ok, error: r.last_error, snapshot: r.last_snapshot === null ? null : Number(r.last_snapshot) } : null,
      lastSuccess: iso(r.last_success),
      freshnessSeconds: r.last_success ? Math.max(0, Math.round((now.getTime() - r.last_success.getTime()) / 1000)) : null,
      failuresSinceSuccess: Number(r.failures),
      passes: Number(r.passes),
      addedAt: r.created_at.toISOString(),
      freshnessBoundSeconds: bound,
      problems: [] as string[],
    };
    tenant.problems = tenantProblems(tenant, now.getTime());
    return tenant;
  });
  return {
    at: now.toISOString(),
    tenants,
    failing: tenants.filter((x) => x.problems.length > 0).length,
    workers: w.rows.map((r) => {
      const age = Math.max(0, (now.getTime() - r.heartbeat_at.getTime()) / 1000);
      return { id: r.id, capacity: r.capacity, tenants: Number(r.tenants), heartbeatAt: r.heartbeat_at.toISOString(), heartbeatAgeSeconds: Math.round(age), live: age <= workerTtlSeconds, draining: r.draining, healthUrl: r.health_url };
    }),
    services: await listServiceBudgets(pool),
  };
}

const ago = (s: number | null): string => (s === null ? 'never' : s < 120 ? `${s}s ago` : s < 7200 ? `${Math.round(s / 60)}m ago` : `${Math.round(s / 3600)}h ago`);

function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (r: string[]): string => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  return [fmt(head), ...rows.map(fmt)].join('\n');
}

/** The human form: tenant names and worker ids are checked when added; URLs, errors and problems go through shown(). */
export function formatFleetStatus(s: FleetStatus): string {
  const tenants = s.tenants.length
    ? table(
        ['tenant', 'home', 'state', 'last pass', 'result', 'fresh', 'failures'],
        s.tenants.map((t) => [
          t.name,
          t.home ? `${t.home.worker}${t.home.workerLive ? '' : ' (gone)'}` : '-',
          t.paused ? 'paused' : t.running ? `running ${t.running.kind}` : 'idle',
          t.lastPass ? `${t.lastPass.kind} ${t.lastPass.finishedAt.slice(0, 19)}Z` : '-',
          t.lastPass ? (t.lastPass.ok ? `ok${t.lastPass.snapshot ? ` #${t.lastPass.snapshot}` : ''}` : `FAILED: ${shown((t.lastPass.error ?? '').replace(/\s+/g, ' ').slice(0, 60))}`) : '-',
          ago(t.freshnessSeconds),
          String(t.failuresSinceSuccess),
        ]),
      )
    : 'no tenants';
  const workers = s.workers.length
    ? table(
        ['worker', 'tenants', 'heartbeat', 'state', 'health'],
        s.workers.map((w) => [w.id, `${w.tenants}/${w.capacity}`, ago(w.heartbeatAgeSeconds), w.draining ? 'draining' : w.live ? 'live' : 'GONE', w.healthUrl === null ? '-' : shown(w.healthUrl)]),
      )
    : 'no workers';
  const services = s.services.length
    ? table(
        ['service', 'req/s', 'in flight', 'now'],
        s.services.map((b) => [shown(b.baseUrl), b.requestsPerSecond === null ? 'default' : String(b.requestsPerSecond), b.inFlight === null ? 'default' : String(b.inFlight), `${b.lastSecond} req in the last second, ${b.open} in flight`]),
      )
    : '';
  const failing = s.tenants.filter((t) => t.problems.length > 0);
  const verdict = failing.length
    ? [`${failing.length} of ${s.tenants.length} tenant(s) failing:`, ...failing.flatMap((t) => t.problems.map((p) => `  ${t.name}: ${shown(p)}`))].join('\n')
    : '';
  return [tenants, '', workers, ...(services ? ['', services] : []), ...(verdict ? ['', verdict] : [])].join('\n');
}

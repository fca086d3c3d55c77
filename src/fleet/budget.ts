// The shared budget per service base URL: requests per second and requests in flight, shared by
// every worker of the fleet through Postgres (wbsync_fleet.budget_acquire takes the service's row
// lock, so acquisitions are serialised per service across the fleet). Crash-safe: a slot carries
// an expiry, so a killed worker's in-flight slots free themselves; a restarted worker releases
// those of its former self at once. Limits: the service's own row (`wbsync fleet budget`), else
// fleet.budget.* of the worker's configuration.

import type pg from 'pg';
import type { RequestGate } from '../api/gate.js';
import { WbsyncError } from '../domain/errors.js';
import { FLEET_SCHEMA as S } from './schema.js';

export interface BudgetLimits {
  requestsPerSecond: number;
  inFlight: number;
  slotTtlSeconds: number;
}

export interface BudgetStats {
  acquired: number;
  waits: number;
  waitedMs: number;
  errors: number;
}

export interface SharedBudget {
  /** The gate for one service's client. */
  gate(baseUrl: string): RequestGate;
  stats(): Map<string, BudgetStats>;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new WbsyncError('unreachable', 'cancelled while waiting for the shared budget'));
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(t);
      reject(new WbsyncError('unreachable', 'cancelled while waiting for the shared budget'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** How long a request waits for Postgres to answer the budget before it fails (the pass then does). */
const POSTGRES_PATIENCE_MS = 60_000;

export function createSharedBudget(pool: pg.Pool, worker: string, limits: BudgetLimits, redact: (t: string) => string): SharedBudget {
  const stats = new Map<string, BudgetStats>();
  const statsOf = (url: string): BudgetStats => {
    let s = stats.get(url);
    if (!s) stats.set(url, (s = { acquired: 0, waits: 0, waitedMs: 0, errors: 0 }));
    return s;
  };

  const acquire = async (baseUrl: string, signal?: AbortSignal): Promise<() => void> => {
    const s = statsOf(baseUrl);
    const started = Date.now();
    let failingSince: number | null = null;
    let backoff = 50;
    for (;;) {
      let row: { slot: string | null; wait_ms: number } | undefined;
      try {
        row = (await pool.query<{ slot: string | null; wait_ms: number }>(`select slot, wait_ms from ${S}.budget_acquire($1, $2, $3, $4, $5)`, [baseUrl, worker, limits.requestsPerSecond, limits.inFlight, limits.slotTtlSeconds])).rows[0];
        failingSince = null;
        backoff = 50;
      } catch (e) {
        s.errors++;
        failingSince ??= Date.now();
        if (Date.now() - failingSince > POSTGRES_PATIENCE_MS) {
          throw new WbsyncError('unreachable', `the fleet's shared budget could not be asked for ${Math.round(POSTGRES_PATIENCE_MS / 1000)} s (Postgres: ${redact((e as Error).message)})`, {
            hint: "check that the fleet's Postgres runs; the pass is retried on the tenant's schedule",
          });
        }
        await sleep(backoff, signal);
        backoff = Math.min(2_000, backoff * 2);
        continue;
      }
      if (row?.slot) {
        const id = row.slot;
        s.acquired++;
        const waited = Date.now() - started;
        if (waited > 0) s.waitedMs += waited;
        let released = false;
        return () => {
          if (released) return;
          released = true;
          // not awaited: a lost release is an expired slot later, never a stuck one
          pool.query(`update ${S}.budget_slots set released_at = clock_timestamp() where id = $1`, [id]).catch(() => void s.errors++);
        };
      }
      s.waits++;
      await sleep(Math.max(1, Math.min(1_000, row?.wait_ms ?? 10)), signal);
    }
  };

  return {
    gate: (baseUrl) => ({ acquire: (signal) => acquire(baseUrl, signal) }),
    stats: () => stats,
  };
}

/** At a worker's start: the slots its former self held are free. */
export async function releaseWorkerSlots(pool: pg.Pool, worker: string): Promise<number> {
  return (await pool.query(`update ${S}.budget_slots set released_at = clock_timestamp() where worker = $1 and released_at is null`, [worker])).rowCount ?? 0;
}

/** Forgets slots no limit looks at any more (older than five minutes, kept that long for a look at
 * recent use, and closed or expired). */
export async function sweepBudget(pool: pg.Pool): Promise<number> {
  return (await pool.query(`delete from ${S}.budget_slots where acquired_at < now() - interval '5 minutes' and (released_at is not null or expires_at < now())`)).rowCount ?? 0;
}

export interface ServiceBudget {
  baseUrl: string;
  requestsPerSecond: number | null;
  inFlight: number | null;
  open: number;
  lastSecond: number;
}

export async function setServiceBudget(pool: pg.Pool, baseUrl: string, limits: { requestsPerSecond?: number; inFlight?: number }): Promise<void> {
  await pool.query(
    `insert into ${S}.services(base_url, requests_per_second, in_flight) values ($1, $2, $3)
     on conflict (base_url) do update set requests_per_second = coalesce($2, ${S}.services.requests_per_second), in_flight = coalesce($3, ${S}.services.in_flight)`,
    [baseUrl, limits.requestsPerSecond ?? null, limits.inFlight ?? null],
  );
}

export async function listServiceBudgets(pool: pg.Pool): Promise<ServiceBudget[]> {
  const rows = await pool.query<{ base_url: string; requests_per_second: number | null; in_flight: number | null; open: string; last_second: string }>(
    `select s.base_url, s.requests_per_second, s.in_flight,
       (select count(*) from ${S}.budget_slots b where b.base_url = s.base_url and b.released_at is null and b.expires_at > now()) as open,
       (select count(*) from ${S}.budget_slots b where b.base_url = s.base_url and b.acquired_at > clock_timestamp() - interval '1 second') as last_second
     from ${S}.services s order by s.base_url`,
  );
  return rows.rows.map((r) => ({ baseUrl: r.base_url, requestsPerSecond: r.requests_per_second, inFlight: r.in_flight, open: Number(r.open), lastSecond: Number(r.last_second) }));
}

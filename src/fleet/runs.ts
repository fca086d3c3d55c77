// The record of each job a worker ran for a tenant (what `fleet status` reads), fenced: a job
// starts and records its end only while (worker, epoch) is still the tenant's home, checked in the
// same transaction as the write.

import type pg from 'pg';
import { stillHome } from './homes.js';
import { inTransaction } from './pg.js';
import { FLEET_SCHEMA as S } from './schema.js';

export type JobKind = 'incremental' | 'full' | 'prune' | 'offsite' | 'drill';
export const JOB_KINDS: readonly JobKind[] = ['full', 'incremental', 'prune', 'offsite', 'drill'];

export interface RunStart {
  tenant: string;
  worker: string;
  epoch: number;
  kind: JobKind;
  reason: string;
  jobId: string;
}

export interface RunEnd {
  ok: boolean;
  error?: string | null;
  snapshotId?: number | null;
  details?: Record<string, unknown>;
}

/** The run's id, or null when the tenant is no longer homed on (worker, epoch): the job must not run. */
export async function startRun(pool: pg.Pool, r: RunStart): Promise<number | null> {
  return inTransaction(pool, async (c) => {
    if (!(await stillHome(c, r.tenant, r.worker, r.epoch))) return null;
    const row = await c.query<{ id: string }>(
      `insert into ${S}.runs(tenant, worker, epoch, kind, reason, job_id) values ($1, $2, $3, $4, $5, $6) returning id`,
      [r.tenant, r.worker, r.epoch, r.kind, r.reason, r.jobId],
    );
    return Number(row.rows[0]!.id);
  });
}

/** Records the end; false when the tenant moved meanwhile (the end is then recorded as fenced, not
 * as the tenant's result). */
export async function finishRun(pool: pg.Pool, id: number, fence: { tenant: string; worker: string; epoch: number }, end: RunEnd): Promise<boolean> {
  return inTransaction(pool, async (c) => {
    const home = await stillHome(c, fence.tenant, fence.worker, fence.epoch);
    await c.query(
      `update ${S}.runs set finished_at = now(), ok = $2, error = $3, snapshot_id = $4, details = $5::jsonb where id = $1`,
      home
        ? [id, end.ok, end.error ?? null, end.snapshotId ?? null, JSON.stringify(end.details ?? {})]
        : [id, null, 'fenced: the tenant moved to another worker while this job ran; its result is not the tenant\'s', end.snapshotId ?? null, JSON.stringify({ ...(end.details ?? {}), fenced: true, ok: end.ok })],
    );
    return home;
  });
}

/** Runs of this worker left open by a job that is not running any more (a crash, Postgres lost
 * under it): closed as interrupted. `busy`: tenants with a job under way here, whose run row may be
 * written but its id not known yet (the insert in flight) — theirs wait for an idle moment. */
export async function closeOrphanRuns(pool: pg.Pool, worker: string, running: readonly number[], busy: readonly string[] = []): Promise<number> {
  const r = await pool.query(
    `update ${S}.runs set finished_at = now(), ok = false, error = 'interrupted: the job ended without recording its end (worker restarted, or Postgres was lost)' where worker = $1 and finished_at is null and not (id = any($2::bigint[])) and not (tenant = any($3::text[]))`,
    [worker, running, busy],
  );
  return r.rowCount ?? 0;
}

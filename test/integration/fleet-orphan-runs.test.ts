// Regression (a full-suite run of fleet-offsite): a worker's round closes the runs its jobs left open
// (a crash, Postgres lost under a job) as interrupted, sparing the runs whose ids its running jobs
// hold. A job records its run (an insert) before it knows the run's id; a round that read the ids
// in that moment closed the run of a job under way — `fleet status` then showed it interrupted
// until the job's end overwrote it. The runs of a tenant with a job under way on this worker are
// spared too. Against a real Postgres.

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeOrphanRuns } from '../../src/fleet/runs.js';
import { ensureFleetSchema, FLEET_SCHEMA as S } from '../../src/fleet/schema.js';
import { startPostgres, type RunningPostgres } from '../helpers/postgres.js';

describe('closing the runs a worker left open', () => {
  let pgs: RunningPostgres;
  let pool: pg.Pool;
  beforeAll(async () => {
    pgs = await startPostgres();
    pool = new pg.Pool({ connectionString: pgs.url, max: 2 });
    await ensureFleetSchema(pool);
    for (const t of ['acme', 'beta']) await pool.query(`insert into ${S}.tenants(name, base_url) values ($1, 'http://127.0.0.1:1')`, [t]);
  }, 120_000);
  afterAll(async () => {
    await pool?.end();
    await pgs?.destroy();
  });

  const open = async (tenant: string, worker = 'w1'): Promise<number> =>
    Number((await pool.query<{ id: string }>(`insert into ${S}.runs(tenant, worker, epoch, kind) values ($1, $2, 1, 'full') returning id`, [tenant, worker])).rows[0]!.id);
  const state = async (id: number): Promise<{ finished: boolean; error: string | null }> => {
    const r = (await pool.query<{ finished_at: Date | null; error: string | null }>(`select finished_at, error from ${S}.runs where id = $1`, [id])).rows[0]!;
    return { finished: r.finished_at !== null, error: r.error };
  };

  it('spares the runs named running, every open run of a busy tenant, and other workers\' runs; closes the rest as interrupted', async () => {
    const known = await open('acme');
    const inFlight = await open('acme'); // its job has not learnt this id yet
    const orphan = await open('beta');
    const elsewhere = await open('beta', 'w2');
    expect(await closeOrphanRuns(pool, 'w1', [known], ['acme'])).toBe(1);
    expect(await state(known)).toEqual({ finished: false, error: null });
    expect(await state(inFlight)).toEqual({ finished: false, error: null });
    expect(await state(elsewhere)).toEqual({ finished: false, error: null });
    expect(await state(orphan)).toMatchObject({ finished: true, error: expect.stringMatching(/^interrupted: the job ended without recording its end/) });
    // once acme is idle, a run of it still open is an orphan
    expect(await closeOrphanRuns(pool, 'w1', [])).toBe(2);
    expect((await state(inFlight)).finished).toBe(true);
  });
});

// The Postgres harness itself: a real server from Debian's binaries, password authentication on
// loopback, stopped and started again by pid with its data kept.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statSync, readFileSync } from 'node:fs';
import { startPostgres, type RunningPostgres } from '../helpers/postgres.js';

describe('test Postgres harness', () => {
  let pgs: RunningPostgres;
  beforeAll(async () => {
    pgs = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await pgs?.destroy();
  });

  it('serves on loopback with a password, writes its URL 0600, and survives stop/start by pid', async () => {
    expect(statSync(pgs.urlFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(pgs.urlFile, 'utf8').trim()).toBe(pgs.url);
    const wrong = pgs.url.replace(/:[^:@/]+@/, ':not-the-password@');
    const { default: pg } = await import('pg');
    const bad = new pg.Client({ connectionString: wrong });
    await expect(bad.connect()).rejects.toThrow(/password authentication failed/);
    await pgs.query('create table t (x int)');
    await pgs.query('insert into t values (1), (2)');
    const first = pgs.pid();
    expect(first).toBeGreaterThan(0);
    await pgs.stop('immediate');
    expect(pgs.pid()).toBeNull();
    await expect(pgs.query('select 1')).rejects.toThrow();
    await pgs.start();
    expect(pgs.pid()).not.toBe(first);
    const rows = await pgs.query<{ n: string }>('select count(*) as n from t');
    expect(Number(rows[0]!.n)).toBe(2);
  }, 120_000);
});

// One worker under the operator's hand: pause, resume and remove a tenant; prune and a restore drill
// run as jobs of their own, one at a time with the passes; a tenant without its key
// does not start (the others do, and /healthz says why); a second process with the same --id is
// refused; single-machine commands work on a tenant's database beside the running worker; the
// Postgres URL never appears in the worker's output.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliCaptured, tempDir } from '../helpers/harness.js';
import { startPostgres, type RunningPostgres } from '../helpers/postgres.js';
import { spawnWorker, startService, waitFor, writeFleetFiles, writeKey, type FleetFiles, type TenantService, type WorkerProcess } from '../helpers/fleet-kit.js';

describe('a fleet worker under control', () => {
  let pgs: RunningPostgres;
  const tmp = tempDir('wbsync-fleet-ctl-');
  let files: FleetFiles;
  let svc: TenantService;
  let worker: WorkerProcess | undefined;
  const cli = (...argv: string[]) => runCliCaptured(['--config', files.config, ...argv]);
  const okRuns = async (tenant: string, since = new Date(0)): Promise<number> =>
    Number((await pgs.query<{ n: string }>(`select count(*) as n from wbsync_fleet.runs where tenant = $1 and ok and started_at > $2`, [tenant, since]))[0]!.n);

  beforeAll(async () => {
    pgs = await startPostgres();
    files = writeFleetFiles(tmp.dir, pgs);
    svc = await startService('observed', { modules: 1, records: 5 });
    const settings = join(tmp.dir, 'tenant.json');
    writeFileSync(settings, JSON.stringify({ schedule: { incremental: '*/2 * * * * *', full: '0 0 1 1 *' } }));
    // gamma: its upkeep as jobs too — prune after each full pass, a restore drill on its schedule
    const upkeep = join(tmp.dir, 'upkeep.json');
    writeFileSync(upkeep, JSON.stringify({ schedule: { incremental: '*/3 * * * * *', full: '*/6 * * * * *' }, retention: { keepLast: 2 }, drill: { schedule: '*/9 * * * * *', dialect: 'spec' } }));
    writeKey(files, 'gamma', svc.emu.apiKey);
    expect((await cli('fleet', 'tenant', 'add', 'gamma', '--base-url', svc.emu.baseUrl, '--tenant-config', upkeep)).code).toBe(0);
    for (const name of ['alpha', 'beta', 'nokey']) {
      if (name !== 'nokey') writeKey(files, name, svc.emu.apiKey);
      expect((await cli('fleet', 'tenant', 'add', name, '--base-url', svc.emu.baseUrl, '--tenant-config', settings)).code).toBe(0);
    }
  }, 120_000);
  afterAll(async () => {
    await worker?.kill9();
    await svc?.emu.stop();
    await pgs?.destroy();
    tmp.cleanup();
  });

  it('pauses, resumes and removes tenants; refuses a second worker of the same id; keeps keyless tenants out; runs prune and drills as jobs', async () => {
    const data = join(tmp.dir, 'w');
    worker = spawnWorker(files, 'w', data, 5);
    await waitFor('alpha and beta passing', 60_000, async () => {
      if (worker!.proc.exitCode !== null) throw new Error(worker!.output());
      return (await okRuns('alpha')) >= 2 && (await okRuns('beta')) >= 2;
    });
    const url = (await pgs.query<{ health_url: string }>(`select health_url from wbsync_fleet.workers where id = 'w'`))[0]!.health_url;
    const health = (await (await fetch(`${url}/healthz`)).json()) as { status: string; tenants: Record<string, { status: string; problem?: string }> };
    expect(health.status).toBe('ok');
    expect(health.tenants.nokey!.status).toBe('not started');
    expect(health.tenants.nokey!.problem).toMatch(/cannot read its key file .*nokey/);
    expect(await okRuns('nokey')).toBe(0);

    // one process per worker id
    const twin = spawnWorker(files, 'w', join(tmp.dir, 'twin'), 5);
    expect(await twin.exited).toBe(2);
    expect(twin.output()).toMatch(/another process runs as fleet worker w/);

    // single-machine commands on a tenant's database beside the worker
    const db = join(data, 'tenants', 'alpha', 'wbsync.db');
    const v = await runCliCaptured(['verify', '--db', db]);
    expect(v.code).toBe(0);
    expect((await runCliCaptured(['snapshots', '--db', db, '--json'])).code).toBe(0);

    // pause: no job starts; resume: they do again
    expect((await cli('fleet', 'tenant', 'pause', 'beta')).code).toBe(0);
    await new Promise((r) => setTimeout(r, 2_500)); // a heartbeat sees it; a job in flight finishes
    const pausedAt = new Date();
    await new Promise((r) => setTimeout(r, 5_000));
    expect(await okRuns('beta', pausedAt)).toBe(0);
    expect(await okRuns('alpha', pausedAt)).toBeGreaterThanOrEqual(1);
    expect((await cli('fleet', 'tenant', 'resume', 'beta')).code).toBe(0);
    await waitFor('beta passing again', 30_000, async () => (await okRuns('beta', pausedAt)) >= 1);

    // remove while one of its jobs is in flight (a slow service): the worker lets go of it without
    // its heartbeat waiting for that job; its database stays
    svc.emu.faults.setLatency(3_000);
    await waitFor('a job of alpha in flight', 30_000, async () => (await pgs.query(`select 1 from wbsync_fleet.runs where tenant = 'alpha' and finished_at is null`)).length > 0, 100);
    expect((await cli('fleet', 'tenant', 'remove', 'alpha')).code).toBe(0);
    for (let i = 0; i < 12; i++) {
      await new Promise((r) => setTimeout(r, 500));
      const age = (await pgs.query<{ s: number }>(`select extract(epoch from now() - heartbeat_at)::float as s from wbsync_fleet.workers where id = 'w'`))[0]!.s;
      expect(age, 'the heartbeat stalled while the removed tenant stopped').toBeLessThan(4);
    }
    svc.emu.faults.setLatency(0);
    await new Promise((r) => setTimeout(r, 2_500));
    const h2 = (await (await fetch(`${url}/healthz`)).json()) as { tenants: Record<string, unknown> };
    expect(Object.keys(h2.tenants).sort()).toEqual(['beta', 'gamma', 'nokey']);
    expect(existsSync(db)).toBe(true);
    expect((await runCliCaptured(['verify', '--db', db])).code).toBe(0);

    // a key put in place later: the tenant starts within the retry delay
    writeKey(files, 'nokey', svc.emu.apiKey);
    await waitFor('the keyless tenant passing once its key is there', 60_000, async () => (await okRuns('nokey')) >= 1, 500);

    // gamma's upkeep ran as jobs of its own, one at a time with its passes
    await waitFor('a prune and a drill of gamma', 90_000, async () => {
      const kinds = (await pgs.query<{ kind: string }>(`select distinct kind from wbsync_fleet.runs where tenant = 'gamma' and ok`)).map((r) => r.kind);
      return kinds.includes('prune') && kinds.includes('drill') && kinds.includes('full');
    }, 500);
    const gamma = await pgs.query<{ kind: string; started_at: Date; finished_at: Date; details: { forgotten?: number[] } }>(`select kind, started_at, finished_at, details from wbsync_fleet.runs where tenant = 'gamma' and finished_at is not null order by id`);
    for (let i = 1; i < gamma.length; i++) expect(gamma[i]!.started_at.getTime()).toBeGreaterThanOrEqual(gamma[i - 1]!.finished_at.getTime());
    expect(gamma.some((r) => r.kind === 'prune' && (r.details.forgotten?.length ?? 0) > 0)).toBe(true);

    const status = await cli('fleet', 'status');
    expect(status.out).toMatch(/^beta\s+w\s+idle|^beta\s+w\s+running/m);
    expect(status.code, status.out).toBe(0); // every tenant homed on a live worker, passing
    expect(await worker.stop()).toBe(0);
    expect(worker.output()).not.toContain(new URL(pgs.url).password);
  }, 240_000);
});

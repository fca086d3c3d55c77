// The fleet for real: Postgres, 3 worker processes, 20 tenants on emulators of both dialects (16
// with a service each, 4 sharing one service under a tight shared budget). Every tenant passes on
// its schedule; never two jobs for one tenant at once (from the runs in Postgres, each tenant's own
// database and each service's request log); the shared budget holds; Postgres restarted under
// load: the workers wait, resume, and still never run two jobs for one tenant.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from '../../src/store/index.js';
import { runCliCaptured, tempDir } from '../helpers/harness.js';
import { startPostgres, type RunningPostgres } from '../helpers/postgres.js';
import { spawnWorker, startService, waitFor, writeFleetFiles, writeKey, type FleetFiles, type TenantService, type WorkerProcess } from '../helpers/fleet-kit.js';

const SHARED_RPS = 25;
const SHARED_IN_FLIGHT = 2;
const TENANT_CONCURRENCY = 4;

interface Run { tenant: string; worker: string; kind: string; started_at: Date; finished_at: Date | null; ok: boolean | null; error: string | null }

/** The most requests that began within any window of `ms` (sliding over the starts). */
function maxInWindow(starts: number[], ms: number): number {
  const s = [...starts].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < s.length; i++) {
    while (s[i]! - s[j]! >= ms) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

/** The most requests in flight at once. */
function maxInFlight(reqs: Array<{ start: number; end: number }>): number {
  const ev = reqs.flatMap((r) => [[r.start, 1], [r.end, -1]] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let cur = 0;
  let best = 0;
  for (const [, d] of ev) best = Math.max(best, (cur += d));
  return best;
}

describe('a fleet of 3 workers and 20 tenants', () => {
  let pgs: RunningPostgres;
  const tmp = tempDir('wbsync-fleet-');
  let files: FleetFiles;
  const own: Array<{ name: string; svc: TenantService }> = [];
  let shared: TenantService;
  const sharedTenants = ['shared-0', 'shared-1', 'shared-2', 'shared-3'];
  const workers: WorkerProcess[] = [];
  const cli = (...argv: string[]) => runCliCaptured(['--config', files.config, ...argv]);
  const runs = async (): Promise<Run[]> => pgs.query<Run>(`select tenant, worker, kind, started_at, finished_at, ok, error from wbsync_fleet.runs order by id`);
  const alive = (): void => {
    for (const w of workers) if (w.proc.exitCode !== null || w.proc.signalCode !== null) throw new Error(`worker ${w.id} exited (${w.proc.exitCode ?? w.proc.signalCode}):\n${w.output().slice(-3000)}`);
  };

  beforeAll(async () => {
    pgs = await startPostgres();
    files = writeFleetFiles(tmp.dir, pgs, { fleet: { budget: { requestsPerSecond: 500, inFlight: 16 } } });
    const settings = join(tmp.dir, 'tenant.json');
    writeFileSync(settings, JSON.stringify({ schedule: { incremental: '*/4 * * * * *', full: '0 0 1 1 *' }, http: { concurrency: TENANT_CONCURRENCY, retries: 3 } }));
    for (let i = 0; i < 16; i++) own.push({ name: `t${String(i).padStart(2, '0')}`, svc: await startService(i % 2 ? 'observed' : 'spec', { modules: 2, records: 8 }) });
    shared = await startService('spec', { modules: 2, records: 20 });
    for (const t of own) {
      writeKey(files, t.name, t.svc.emu.apiKey);
      const r = await cli('fleet', 'tenant', 'add', t.name, '--base-url', t.svc.emu.baseUrl, '--tenant-config', settings);
      expect(r.err).toBe('');
    }
    for (const name of sharedTenants) {
      writeKey(files, name, shared.emu.apiKey);
      expect((await cli('fleet', 'tenant', 'add', name, '--base-url', shared.emu.baseUrl, '--tenant-config', settings)).code).toBe(0);
    }
    const b = await cli('fleet', 'budget', shared.emu.baseUrl, '--requests-per-second', String(SHARED_RPS), '--in-flight', String(SHARED_IN_FLIGHT));
    expect(b.err).toBe('');
  }, 120_000);

  afterAll(async () => {
    for (const w of workers) await w.kill9();
    for (const t of own) await t.svc.emu.stop();
    await shared?.emu.stop();
    await pgs?.destroy();
    tmp.cleanup();
  });

  it('homes each tenant once, passes every tenant on its schedule, survives a Postgres restart, never two jobs per tenant, within the shared budget', async () => {
    for (const id of ['w0', 'w1', 'w2']) workers.push(spawnWorker(files, id, join(tmp.dir, id), 8));

    // every tenant: its first full pass, then incremental passes on the schedule
    await waitFor('every tenant homed, with a full and two incremental passes', 90_000, async () => {
      alive();
      const rs = await runs();
      const all = [...own.map((t) => t.name), ...sharedTenants];
      return all.every((n) => rs.some((r) => r.tenant === n && r.kind === 'full' && r.ok) && rs.filter((r) => r.tenant === n && r.kind === 'incremental' && r.ok).length >= 2);
    }, 500);
    const homes = await pgs.query<{ tenant: string; worker: string }>(`select tenant, worker from wbsync_fleet.homes`);
    expect(homes).toHaveLength(20);
    const perWorker = new Map<string, number>();
    for (const h of homes) perWorker.set(h.worker, (perWorker.get(h.worker) ?? 0) + 1);
    expect([...perWorker.keys()].sort()).toEqual(['w0', 'w1', 'w2']);
    for (const n of perWorker.values()) expect(n).toBeLessThanOrEqual(8);

    // Postgres restarted under load (an immediate stop is a crash for every connection)
    const beforeRestart = new Date();
    await pgs.stop('immediate');
    await new Promise((r) => setTimeout(r, 4_000));
    alive();
    await pgs.start();
    await waitFor('every tenant passing again after the restart', 60_000, async () => {
      alive();
      const rs = await runs();
      return [...own.map((t) => t.name), ...sharedTenants].every((n) => rs.filter((r) => r.tenant === n && r.ok && r.started_at > beforeRestart).length >= 2);
    }, 500);
    const healthUrls = await pgs.query<{ id: string; health_url: string }>(`select id, health_url from wbsync_fleet.workers order by id`);
    for (const w of healthUrls) {
      const h = await fetch(`${w.health_url}/healthz`);
      expect(h.status).toBe(200);
      const metrics = await (await fetch(`${w.health_url}/metrics`)).text();
      const mine = homes.filter((x) => x.worker === w.id).map((x) => x.tenant);
      for (const t of mine) expect(metrics).toMatch(new RegExp(`wbsync_passes_total\\{tenant="${t}",kind="incremental",status="complete"\\} [1-9]`));
    }
    const status = JSON.parse((await cli('fleet', 'status', '--json')).out) as { tenants: Array<{ name: string; home: { worker: string } | null; lastPass: { ok: boolean } | null; freshnessSeconds: number | null }> };
    expect(status.tenants).toHaveLength(20);
    for (const t of status.tenants) {
      expect(t.home?.worker).toBe(homes.find((h) => h.tenant === t.name)!.worker);
      expect(t.freshnessSeconds).not.toBeNull();
      expect(t.freshnessSeconds!).toBeLessThan(30);
    }

    let sharedWaits = 0;
    for (const w of healthUrls) {
      const text = await (await fetch(`${w.health_url}/metrics`)).text();
      const m = new RegExp(`^wbsync_fleet_budget_waits_total\\{service="${shared.emu.baseUrl.replace(/[.]/g, '\\.')}"\\} (\\d+)`, 'm').exec(text);
      sharedWaits += m ? Number(m[1]) : 0;
    }
    for (const w of workers) expect(await w.stop()).toBe(0);
    // the workers saw Postgres go (and waited): each logged its lost heartbeat or its queue's errors
    for (const w of workers) expect(w.output()).toMatch(/heartbeat failed \(Postgres\?\)|job queue error \(Postgres\?\)|Postgres connection lost/);
    expect(workers.map((w) => w.output()).join('\n')).not.toContain(new URL(pgs.url).password);
    const rs = await runs();
    // homes never moved: every run of a tenant on its one home
    for (const r of rs) expect(r.worker).toBe(homes.find((h) => h.tenant === r.tenant)!.worker);
    // every run closed (a job Postgres was lost under is recorded as interrupted)
    expect(rs.filter((r) => r.finished_at === null)).toEqual([]);

    for (const { name, svc } of [...own.map((t) => ({ name: t.name, svc: t.svc })), ...sharedTenants.map((name) => ({ name, svc: shared }))]) {
      const mine = rs.filter((r) => r.tenant === name).map((r) => ({ start: r.started_at.getTime(), end: r.finished_at!.getTime(), kind: r.kind }));
      // runs of one tenant never overlap (Postgres' record)
      for (let i = 1; i < mine.length; i++) expect(mine[i]!.start, `${name}: run ${i} began before run ${i - 1} ended`).toBeGreaterThanOrEqual(mine[i - 1]!.end);
      // the tenant's own database: its snapshots never overlap either
      const home = homes.find((h) => h.tenant === name)!.worker;
      const dbPath = join(tmp.dir, home, 'tenants', name, 'wbsync.db');
      expect(existsSync(dbPath)).toBe(true);
      const store = openStore(dbPath, { readonly: true });
      try {
        const snaps = store.listSnapshots().map((s) => ({ start: Date.parse(s.startedAt), end: s.finishedAt ? Date.parse(s.finishedAt) : Infinity, status: s.status }));
        expect(snaps.filter((s) => s.status === 'complete').length).toBeGreaterThanOrEqual(5);
        for (let i = 1; i < snaps.length; i++) expect(snaps[i]!.start, `${name}: snapshot ${i + 1} began before snapshot ${i} ended`).toBeGreaterThanOrEqual(snaps[i - 1]!.end);
        expect(store.verify().ok).toBe(true);
      } finally {
        store.close();
      }
      if (svc !== shared) {
        // the service's request log: every request fell inside one job of this tenant, and no more
        // were in flight at once than one job's client allows
        const slack = 100;
        for (const q of svc.requests) {
          const inside = mine.some((m) => q.start >= m.start - slack && q.end <= m.end + slack);
          expect(inside, `${name}: a request at ${new Date(q.start).toISOString()} outside every job`).toBe(true);
        }
        expect(maxInFlight(svc.requests)).toBeLessThanOrEqual(TENANT_CONCURRENCY);
      }
    }

    // the shared budget: four tenants on three workers, one service: within its requests per second
    // and in flight, and busy enough that the budget was what bound them
    const reqs = shared.requests;
    expect(reqs.length).toBeGreaterThan(4 * 40);
    expect(maxInFlight(reqs)).toBeLessThanOrEqual(SHARED_IN_FLIGHT);
    // Postgres' record of the slots is exact; what reaches the service may bunch by a request's
    // latency between its slot and its arrival, so one second of arrivals gets a small allowance
    const slots = (await pgs.query<{ at: Date }>(`select acquired_at as at from wbsync_fleet.budget_slots where base_url = $1`, [shared.emu.baseUrl])).map((r) => r.at.getTime());
    expect(slots.length).toBeGreaterThanOrEqual(reqs.length);
    expect(maxInWindow(slots, 1000)).toBeLessThanOrEqual(SHARED_RPS);
    expect(maxInWindow(reqs.map((r) => r.start), 1000)).toBeLessThanOrEqual(Math.ceil(SHARED_RPS * 1.1) + 1);
    expect(maxInWindow(reqs.map((r) => r.start), 5000)).toBeLessThanOrEqual(5 * SHARED_RPS + 3);
    // and the budget bound them: requests waited for it
    expect(sharedWaits).toBeGreaterThan(0);
  }, 240_000);
});

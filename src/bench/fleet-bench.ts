// BENCH_ONLY=fleet: the fleet on a real Postgres (Debian's server, as the tests start it). Passes
// per minute with 1, 2 and 4 worker processes for 40 small tenants (the small seed, on a few
// emulator processes, several tenants per service, each service under the shared budget): after
// every tenant's first full pass, the incremental passes finished in a fixed window. Rising with
// workers until the shared budget (or the machine) binds. SIGINT/SIGTERM to the bench stops what
// the section started (workers by process group, emulators, Postgres by pid) and removes its
// temp folders (signal-cleanup.ts).

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulatorChild, type EmulatorChild } from './emulator-child.js';
import { startPostgres, type RunningPostgres } from './pg-server.js';
import { signalCleanup, type SignalCleanup } from './signal-cleanup.js';
import { ConfigSchema } from '../config/schema.js';
import { openFleetDb } from '../fleet/pg.js';
import { ensureFleetSchema } from '../fleet/schema.js';
import { addTenant } from '../fleet/tenants.js';
import { NODE_FLAGS } from '../config/heap-policy.js';

const CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url));

export interface FleetBenchOptions {
  tenants: number;
  services: number;
  workerCounts: number[];
  windowS: number;
  /** Requests per second of each service's shared budget. */
  rps: number;
  latencyMs: number;
  /** The tenants' incremental schedule (cron with seconds). */
  schedule: string;
  say(text: string): void;
}

export function fleetBenchOptions(latencyMs: number, say: (t: string) => void): FleetBenchOptions {
  const env = process.env;
  return {
    tenants: Number(env.BENCH_FLEET_TENANTS ?? 40),
    services: Number(env.BENCH_FLEET_SERVICES ?? 4),
    workerCounts: (env.BENCH_FLEET_WORKERS ?? '1,2,4').split(',').map(Number),
    windowS: Number(env.BENCH_FLEET_WINDOW_S ?? 30),
    rps: Number(env.BENCH_FLEET_RPS ?? 100),
    latencyMs,
    schedule: env.BENCH_FLEET_SCHEDULE ?? '*/2 * * * * *',
    say,
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function count(pg: RunningPostgres, sql: string, params: unknown[] = []): Promise<number> {
  return Number((await pg.query<{ n: string }>(sql, params))[0]!.n);
}

function stopChild(c: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (c.exitCode !== null || c.signalCode !== null) return resolve();
    const t = setTimeout(() => c.kill('SIGKILL'), 20_000);
    c.once('exit', () => (clearTimeout(t), resolve()));
    process.kill(c.pid!, 'SIGTERM');
  });
}

async function oneFleet(o: FleetBenchOptions, pg: RunningPostgres, services: EmulatorChild[], workers: number, dir: string, cleanup: SignalCleanup): Promise<Record<string, unknown>> {
  await pg.query('drop schema if exists wbsync_fleet cascade');
  await pg.query('drop schema if exists wbsync_boss cascade');
  const keyDir = join(dir, 'keys');
  mkdirSync(keyDir, { recursive: true, mode: 0o700 });
  const config = join(dir, 'fleet.json');
  writeFileSync(config, JSON.stringify({ log: { level: 'warn' }, fleet: { postgresUrlFile: pg.urlFile, keyDir, listen: '127.0.0.1:0', heartbeatSeconds: 1, budget: { requestsPerSecond: o.rps, inFlight: 8 } } }), { mode: 0o600 });
  // the registry filled in-process (40 `wbsync fleet tenant add` processes would cost more than the run)
  const fleetDb = openFleetDb({ fleet: { ...ConfigSchema.parse({}).fleet, postgresUrlFile: pg.urlFile } });
  try {
    await ensureFleetSchema(fleetDb.pool);
    for (let i = 0; i < o.tenants; i++) {
      const svc = services[i % services.length]!;
      const name = `bench-${i}`;
      writeFileSync(join(keyDir, name), svc.apiKey, { mode: 0o600 });
      await addTenant(fleetDb.pool, { name, baseUrl: svc.baseUrl, config: { schedule: { incremental: o.schedule, full: '0 0 1 1 *' }, http: { concurrency: 4 } } });
    }
  } finally {
    await fleetDb.close();
  }
  const capacity = Math.ceil(o.tenants / workers);
  const procs: ChildProcess[] = [];
  const started = Date.now();
  try {
    for (let w = 0; w < workers; w++) {
      const data = join(dir, `w${w}`);
      mkdirSync(data, { recursive: true });
      // its own process group: a signal to the bench stops it and whatever it started
      const child = spawn(process.execPath, [...NODE_FLAGS, CLI, '--config', config, 'fleet', 'worker', '--data', data, '--id', `w${w}`, '--capacity', String(capacity)], { stdio: ['ignore', 'ignore', 'ignore'], detached: true });
      procs.push(child);
      cleanup.process(child.pid!, { group: true, name: `fleet worker w${w}` });
    }
    for (;;) {
      await cleanup.checkpoint();
      const full = await count(pg, `select count(distinct tenant) as n from wbsync_fleet.runs where kind = 'full' and ok`);
      if (full >= o.tenants) break;
      if (procs.some((p) => p.exitCode !== null)) throw new Error('a fleet worker exited during the bench');
      if (Date.now() - started > 600_000) throw new Error(`only ${full} of ${o.tenants} tenants made their first full pass in 10 minutes`);
      await sleep(500);
    }
    const warmS = (Date.now() - started) / 1000;
    const from = new Date();
    await sleep(o.windowS * 1000);
    await cleanup.checkpoint();
    const to = new Date();
    const passes = await count(pg, `select count(*) as n from wbsync_fleet.runs where kind in ('incremental', 'full') and ok and finished_at > $1 and finished_at <= $2`, [from, to]);
    const failed = await count(pg, `select count(*) as n from wbsync_fleet.runs where ok = false and finished_at > $1 and finished_at <= $2`, [from, to]);
    const requests = await count(pg, `select count(*) as n from wbsync_fleet.budget_slots where acquired_at > $1 and acquired_at <= $2`, [from, to]);
    const minutes = (to.getTime() - from.getTime()) / 60_000;
    return { workers, capacity, firstFullPassesS: Math.round(warmS * 10) / 10, passesPerMinute: Math.round(passes / minutes), failedPerMinute: Math.round(failed / minutes), requestsPerSecond: Math.round(requests / (minutes * 60)) };
  } finally {
    await Promise.all(procs.map(stopChild));
  }
}

export async function fleetSection(o: FleetBenchOptions): Promise<Record<string, unknown>> {
  const cleanup = signalCleanup({ say: o.say });
  const dir = mkdtempSync(join(tmpdir(), 'wbsync-bench-fleet-'));
  cleanup.dir(dir);
  o.say(`bench: fleet: Postgres, ${o.services} services, ${o.tenants} tenants...\n`);
  let pg: RunningPostgres | undefined;
  const services: EmulatorChild[] = [];
  try {
    pg = await cleanup.starting('Postgres', startPostgres(), (p) => p.destroy());
    for (let i = 0; i < o.services; i++) {
      const args = ['--seed', 'small', '--dialect', i % 2 ? 'observed' : 'spec', '--latency-ms', String(o.latencyMs)];
      services.push(await cleanup.starting(`emulator ${i}`, startEmulatorChild(args), (e) => e.stop()));
    }
    const rows: Record<string, unknown>[] = [];
    for (const n of o.workerCounts) {
      o.say(`bench: fleet: ${n} worker(s)...\n`);
      rows.push(await oneFleet(o, pg, services, n, join(dir, `fleet-${n}`), cleanup));
    }
    // what the tenants' schedule asks for, and what the budgets allow (3 requests an incremental pass)
    const demandPerMinute = Math.round(o.tenants * (60 / scheduleSeconds(o.schedule)));
    return { tenants: o.tenants, services: o.services, schedule: o.schedule, windowS: o.windowS, budgetRpsPerService: o.rps, demandPerMinute, byWorkers: rows };
  } finally {
    await cleanup.checkpoint();
    cleanup.dispose();
    for (const s of services) await s.stop();
    await pg?.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

function scheduleSeconds(expr: string): number {
  const m = /^\*\/(\d+) /.exec(expr);
  return m ? Number(m[1]) : 60;
}

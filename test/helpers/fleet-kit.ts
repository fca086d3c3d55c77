// A fleet for tests: a real Postgres (postgres.ts), emulators as tenants' services with their
// request logs stamped in wall time, a config file and key folder for the workers, and workers as
// real processes (`node dist/cli/main.js fleet worker …`), stopped by pid.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '../../src/emulator/index.js';
import type { Dialect, RunningEmulator, SeedParams } from '../../src/emulator/types.js';
import type { RunningPostgres } from './postgres.js';

export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

export interface TimedRequest {
  route: string;
  status: number;
  /** wall-clock ms when the emulator began answering, and when the answer was done */
  start: number;
  end: number;
}

/** Every request the emulator answers, stamped in wall time (the emulator's own log uses its clock). */
export function recordRequests(emu: RunningEmulator): TimedRequest[] {
  const list: TimedRequest[] = [];
  // the log's entry is added when the answer closes; its `at` is when the request came in (the
  // emulator's clock, which is wall time in 'real' clock mode)
  const log = emu.requestLog as unknown as { add(e: { route: string; status: number; at: string }): void };
  const add = log.add.bind(log);
  log.add = (e) => {
    const end = Date.now();
    const start = Date.parse(e.at);
    list.push({ route: e.route, status: e.status, start: Number.isFinite(start) ? start : end, end });
    add(e);
  };
  return list;
}

export interface TenantService {
  emu: RunningEmulator;
  requests: TimedRequest[];
}

/** An emulator seeded with a small generated world (`small`, trimmed by `params`), on wall time. */
export async function startService(dialect: Dialect, params: SeedParams = {}): Promise<TenantService> {
  const emu = await startEmulator({ dialect, seed: 'small', seedParams: params, clockMode: 'real' });
  return { emu, requests: recordRequests(emu) };
}

export interface FleetFiles {
  dir: string;
  config: string;
  keyDir: string;
}

export function writeFleetFiles(dir: string, pg: RunningPostgres, extra: Record<string, unknown> = {}): FleetFiles {
  const keyDir = join(dir, 'keys');
  mkdirSync(keyDir, { recursive: true, mode: 0o700 });
  const config = join(dir, 'fleet.json');
  const base = { log: { level: 'info' }, fleet: { postgresUrlFile: pg.urlFile, keyDir, listen: '127.0.0.1:0', heartbeatSeconds: 1, workerTtlSeconds: 15 } };
  const merged = { ...base, ...extra, fleet: { ...base.fleet, ...((extra.fleet as object | undefined) ?? {}) } };
  writeFileSync(config, JSON.stringify(merged), { mode: 0o600 });
  return { dir, config, keyDir };
}

export function writeKey(files: FleetFiles, tenant: string, key: string): void {
  writeFileSync(join(files.keyDir, tenant), `${key}\n`, { mode: 0o600 });
}

export interface WorkerProcess {
  id: string;
  pid: number;
  proc: ChildProcess;
  output(): string;
  /** SIGTERM by pid, then waits for the exit (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<number | null>;
  kill9(): Promise<void>;
  exited: Promise<number | null>;
}

export function spawnWorker(files: FleetFiles, id: string, dataDir: string, capacity: number, env: NodeJS.ProcessEnv = {}): WorkerProcess {
  mkdirSync(dataDir, { recursive: true });
  const proc = spawn(process.execPath, [CLI, '--config', files.config, 'fleet', 'worker', '--data', dataDir, '--id', id, '--capacity', String(capacity)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
  });
  let out = '';
  proc.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const alive = (): boolean => proc.exitCode === null && proc.signalCode === null;
  return {
    id,
    pid: proc.pid!,
    proc,
    output: () => out,
    exited,
    async stop(graceMs = 20_000) {
      if (!alive()) return proc.exitCode;
      process.kill(proc.pid!, 'SIGTERM');
      const t = setTimeout(() => alive() && process.kill(proc.pid!, 'SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(t);
      return code;
    },
    async kill9() {
      if (!alive()) return;
      process.kill(proc.pid!, 'SIGKILL');
      await exited;
    },
  };
}

/** Polls `check` until it returns a value (not undefined/false), or throws after `ms` with `what`. */
export async function waitFor<T>(what: string, ms: number, check: () => Promise<T | undefined | false> | T | undefined | false, everyMs = 250): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v as T;
    if (Date.now() > until) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

// Two writers through a stale lock (issue #32 item 4): a lock left by a dead holder, and several
// processes starting at once. Hundreds of trials, never two holders at the same moment: each racer
// proves it is alone by creating a marker file exclusively while it holds the lock.

import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { requireBuild, spawnCli, startEmulatorChild, stopChildren } from '../helpers/fault-kit.js';
import { tempDir } from '../helpers/harness.js';

const WORKER = fileURLToPath(new URL('./lock-race-worker.mjs', import.meta.url));
const RACERS = 4;
const TRIALS = 300;

interface Racer {
  proc: ChildProcessWithoutNullStreams;
  next(): Promise<string>;
}

function startRacer(): Racer {
  const proc = spawn(process.execPath, [WORKER], { stdio: ['pipe', 'pipe', 'pipe'] });
  const rl: Interface = createInterface({ input: proc.stdout });
  const queue: string[] = [];
  const waiting: Array<(l: string) => void> = [];
  rl.on('line', (l) => (waiting.length ? waiting.shift()!(l) : queue.push(l)));
  proc.stderr.on('data', (d) => queue.push(`stderr ${String(d)}`));
  return { proc, next: () => (queue.length ? Promise.resolve(queue.shift()!) : new Promise((r) => waiting.push(r))) };
}

function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

let tmp: ReturnType<typeof tempDir>;
const racers: Racer[] = [];

beforeAll(() => {
  requireBuild();
  tmp = tempDir('wbsync-lock-race-');
});
afterAll(async () => {
  for (const r of racers) r.proc.kill('SIGKILL');
  await stopChildren();
  tmp?.cleanup();
});

it(`never lets two processes hold the write lock: ${TRIALS} trials of ${RACERS} racers on a stale lock`, { timeout: 180_000 }, async () => {
  for (let i = 0; i < RACERS; i++) racers.push(startRacer());
  for (const r of racers) expect(await r.next()).toBe('ready');
  const dead = deadPid();
  const tally: Record<string, number> = {};
  for (let trial = 0; trial < TRIALS; trial++) {
    const dir = join(tmp.dir, `t${trial}`);
    mkdirSync(dir);
    const db = join(dir, 'wbsync.db');
    if (trial % 30 === 0) {
      // a real holder killed with -9 while holding
      const victim = startRacer();
      expect(await victim.next()).toBe('ready');
      victim.proc.stdin.write(`hold ${db}\n`);
      expect(await victim.next()).toBe('holding');
      const exited = new Promise((r) => victim.proc.once('exit', r));
      victim.proc.kill('SIGKILL');
      await exited;
    } else if (trial % 2 === 0) {
      // a lock file of an older wbsync: the pid of a process that is gone
      writeFileSync(`${db}.lock`, `${dead}\n`, { mode: 0o600 });
    } else {
      // what a killed holder leaves: the lock file and its holder note naming a gone pid
      writeFileSync(`${db}.lock`, '', { mode: 0o600 });
      writeFileSync(`${db}.lock-holder`, JSON.stringify({ pid: dead, command: 'sync', since: new Date().toISOString(), token: 'x' }), { mode: 0o600 });
    }
    for (const r of racers) r.proc.stdin.write(`go ${db}\n`);
    const results = await Promise.all(racers.map((r) => r.next()));
    for (const res of results) tally[res] = (tally[res] ?? 0) + 1;
    expect(results.filter((r) => r === 'double'), `trial ${trial}: ${results.join(', ')}`).toEqual([]);
    expect(results.filter((r) => r !== 'held' && r !== 'refused'), `trial ${trial}`).toEqual([]);
    expect(results, `trial ${trial}: a stale lock must be taken over`).toContain('held');
  }
  expect(tally.held).toBeGreaterThanOrEqual(TRIALS);
});

it('three `sync --full` started at once on a lock left by a killed sync: all complete, one after another', { timeout: 180_000 }, async () => {
  const emu = await startEmulatorChild(['--seed', 'demo', '--latency-ms', '5']);
  const db = join(tmp.dir, 'syncs', 'wbsync.db');
  const env = { WBSYNC_BASE_URL: emu.baseUrl, WBSYNC_API_KEY: emu.apiKey, WBSYNC_DB: db, WBSYNC_LOG_LEVEL: 'warn' };
  expect((await spawnCli(['sync', '--full'], env).exited).code).toBe(0);
  // a sync killed while holding the lock
  const victim = spawnCli(['sync', '--full'], env);
  const t0 = Date.now();
  while (Date.now() - t0 < 10_000) {
    const holder = (() => {
      try {
        return JSON.parse(readFileSync(`${db}.lock-holder`, 'utf8')) as { pid: number };
      } catch {
        return null;
      }
    })();
    if (holder?.pid === victim.pid) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  process.kill(victim.pid, 'SIGKILL');
  await victim.exited;
  const runs = [0, 1, 2].map(() => spawnCli(['sync', '--full'], env));
  const codes = await Promise.all(runs.map((r) => r.exited));
  for (const [i, c] of codes.entries()) expect(c.code, runs[i]!.err()).toBe(0);
  const x = new Database(db, { readonly: true });
  try {
    const snaps = x.prepare(`SELECT id, status, started_at, finished_at FROM snapshots ORDER BY id`).all() as Array<{ id: number; status: string; started_at: string; finished_at: string | null }>;
    expect(snaps.filter((s) => s.status === 'complete')).toHaveLength(4);
    const done = snaps.filter((s) => s.status === 'complete');
    for (let i = 1; i < done.length; i++) expect(Date.parse(done[i]!.started_at), `snapshot ${done[i]!.id} began while ${done[i - 1]!.id} ran`).toBeGreaterThanOrEqual(Date.parse(done[i - 1]!.finished_at!));
  } finally {
    x.close();
  }
});

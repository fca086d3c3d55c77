// The bench stopped by a signal stops what it started: the clean-up helper with real child
// processes (a process group with a grandchild, a plain child, a start still in flight, a temp
// folder) on SIGINT; and the fleet section itself (Postgres, an emulator, a fleet worker) in a
// child process on SIGTERM — every one of its processes gone and its temp folders removed.
// Runs the built bench (dist/), like the integration tests run dist/cli.

import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const DIST = fileURLToPath(new URL('../../dist/bench/', import.meta.url));
const started: number[] = [];
const dirs: string[] = [];

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  // a zombie (exited, not yet reaped by its parent) is gone for our purpose
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

function procs(): Array<{ pid: number; ppid: number; cmd: string }> {
  const out: Array<{ pid: number; ppid: number; cmd: string }> = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      out.push({ pid: Number(e), ppid, cmd: readFileSync(`/proc/${e}/cmdline`, 'utf8').replace(/\0/g, ' ') });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** `roots` and every process below them. */
function withDescendants(roots: number[]): number[] {
  const all = procs();
  const found = new Set(roots);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) if (found.has(p.ppid) && !found.has(p.pid)) (found.add(p.pid), (grew = true));
  }
  return [...found];
}

async function until<T>(what: string, ms: number, check: () => T | undefined | null | false): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = check();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function runScript(script: string, env: NodeJS.ProcessEnv): { child: ChildProcess; out: () => string; exited: Promise<{ code: number | null; signal: string | null }> } {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } });
  started.push(child.pid!);
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<{ code: number | null; signal: string | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
  return { child, out: () => out, exited };
}

afterEach(() => {
  // whatever a failed test left: by pid
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('the bench on a signal', () => {
  it('the clean-up helper: SIGINT stops a process group, a child and a start in flight, removes the folder, exits 130', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'wbsync-signal-'));
    dirs.push(tmp);
    const script = `
      import { spawn } from 'node:child_process';
      import { mkdirSync } from 'node:fs';
      const { signalCleanup } = await import(${JSON.stringify(pathToFileURL(join(DIST, 'signal-cleanup.js')).href)});
      const c = signalCleanup({ graceMs: 500 });
      const folder = ${JSON.stringify(join(tmp, 'section'))};
      mkdirSync(folder);
      c.dir(folder);
      // a process group: a shell that ignores SIGTERM, with a grandchild
      const group = spawn('sh', ['-c', 'trap "" TERM; sleep 300 & sleep 301; wait'], { detached: true, stdio: 'ignore' });
      c.process(group.pid, { group: true });
      const plain = spawn('sleep', ['302'], { stdio: 'ignore' });
      c.process(plain.pid);
      // a start still in flight when the signal comes: waited for, then undone
      let late;
      const start = new Promise((r) => setTimeout(() => { late = spawn('sleep', ['303'], { stdio: 'ignore' }); r(late); }, 700));
      void c.starting('late', start, (p) => { p.kill('SIGKILL'); });
      setTimeout(() => process.stdout.write(JSON.stringify({ group: group.pid, plain: plain.pid }) + '\\n'), 300);
      setInterval(() => { if (late) process.stdout.write(JSON.stringify({ late: late.pid }) + '\\n'); }, 200);
      await new Promise(() => {});
    `;
    const run = runScript(script, {});
    const first = await until('the child processes', 10_000, () => /\{"group":(\d+),"plain":(\d+)\}/.exec(run.out()));
    const ids = [Number(first[1]), Number(first[2])];
    const tree = await until('the grandchildren', 5_000, () => {
      const t = withDescendants(ids);
      return t.length >= 4 && t;
    });
    started.push(...tree);
    process.kill(run.child.pid!, 'SIGINT');
    const late = Number((await until('the late start', 5_000, () => /\{"late":(\d+)\}/.exec(run.out())))[1]);
    started.push(late);
    expect(await run.exited, run.out()).toEqual({ code: 130, signal: null });
    for (const pid of [...tree, late]) await until(`pid ${pid} gone`, 5_000, () => !alive(pid));
    expect(existsSync(join(tmp, 'section'))).toBe(false);
  }, 30_000);

  it('the fleet section: SIGTERM stops Postgres, the emulator and the worker, removes its temp folders, exits 143', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'wbsync-bench-signal-'));
    dirs.push(tmp);
    chmodSync(tmp, 0o755); // as root, Postgres runs as the postgres user, inside this folder
    const script = `
      const { fleetSection } = await import(${JSON.stringify(pathToFileURL(join(DIST, 'fleet-bench.js')).href)});
      await fleetSection({ tenants: 2, services: 1, workerCounts: [1], windowS: 600, rps: 50, latencyMs: 0, schedule: '*/2 * * * * *', say: (t) => process.stderr.write(t) });
    `;
    const run = runScript(script, { TMPDIR: tmp });
    // the worker up (its --data is under TMPDIR) and Postgres (its -D too)
    const worker = await until('the fleet worker', 60_000, () => {
      if (run.child.exitCode !== null) throw new Error(`the section ended: ${run.out()}`);
      return procs().find((p) => p.cmd.includes('fleet worker') && p.cmd.includes(tmp));
    });
    await new Promise((r) => setTimeout(r, 2_000)); // it connects to Postgres, takes its tenants
    const postmaster = procs().filter((p) => p.cmd.includes(tmp) && /\bpostgres\b.* -D /.test(p.cmd)).map((p) => p.pid);
    expect(postmaster).toHaveLength(1);
    const all = withDescendants([run.child.pid!, ...postmaster]).filter((pid) => pid !== run.child.pid);
    started.push(...all);
    expect(all).toContain(worker.pid);
    expect(all.length).toBeGreaterThanOrEqual(4); // Postgres (with its backends), the emulator, the worker
    expect(readdirSync(tmp).length).toBeGreaterThanOrEqual(2); // the section's folder and Postgres'

    process.kill(run.child.pid!, 'SIGTERM');
    expect(await run.exited, run.out()).toEqual({ code: 143, signal: null });
    for (const pid of all) await until(`pid ${pid} gone`, 10_000, () => !alive(pid));
    // left: only the Postgres template cluster, kept on purpose for the next server (pg-server.ts)
    expect(readdirSync(tmp).filter((n) => !n.startsWith('wbsync-pg-template-'))).toEqual([]);
  }, 120_000);
});

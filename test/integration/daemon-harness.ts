// Runs `wbsync daemon` as a child process for the integration tests: a temp config with a
// one-second schedule, the key in the environment, JSON log lines parsed from stderr, and every
// child stopped by pid when the test ends.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const MAIN = join(ROOT, 'dist/cli/main.js');

export type LogLine = Record<string, unknown> & { msg?: string; level?: number };

export interface DaemonChild {
  proc: ChildProcess;
  pid: number;
  lines: LogLine[];
  stderr(): string;
  stdout(): string;
  /** Resolves with the first log line matching, or rejects after timeoutMs. */
  waitForLog(pred: (l: LogLine) => boolean, timeoutMs?: number, what?: string): Promise<LogLine>;
  /** Resolves with the exit code (signal name when killed). */
  exited: Promise<number | string>;
  port(): Promise<number>;
}

const started = new Set<ChildProcess>();

/** For afterEach: kill every child still running, by pid. */
export async function killAll(): Promise<void> {
  for (const p of started) {
    if (p.exitCode === null && p.signalCode === null && p.pid) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
      await new Promise((r) => p.once('exit', r));
    }
  }
  started.clear();
}

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('WBSYNC_')) env[k] = v;
  return { ...env, ...extra };
}

export interface DaemonConfig {
  db: string;
  incremental?: string;
  full?: string;
  retries?: number;
  /** freshness.maxStalenessMinutes */
  maxStalenessMinutes?: number;
  /** More top-level keys (alerts, tripwire, retention...). */
  extra?: Record<string, unknown>;
}

export function writeConfig(dir: string, name: string, c: DaemonConfig): string {
  const file = join(dir, `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      db: c.db,
      schedule: { incremental: c.incremental ?? '*/1 * * * * *', full: c.full ?? '0 0 3 * * *' },
      daemon: { listen: '127.0.0.1:0' },
      http: { retries: c.retries ?? 1, timeoutMs: 5000, concurrency: 4 },
      log: { level: 'info' },
      ...(c.maxStalenessMinutes === undefined ? {} : { freshness: { maxStalenessMinutes: c.maxStalenessMinutes } }),
      ...c.extra,
    }),
  );
  return file;
}

export function startDaemon(configFile: string, baseUrl: string, apiKey: string): DaemonChild {
  const proc = spawn(process.execPath, [MAIN, 'daemon', '--config', configFile], {
    cwd: ROOT,
    env: cleanEnv({ WBSYNC_BASE_URL: baseUrl, WBSYNC_API_KEY: apiKey }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.add(proc);
  const lines: LogLine[] = [];
  const waiters: Array<() => void> = [];
  let err = '';
  let out = '';
  let partial = '';
  proc.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err += d;
    partial += d;
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    for (const p of parts) {
      try {
        lines.push(JSON.parse(p) as LogLine);
      } catch {
        lines.push({ msg: `(text) ${p}` });
      }
    }
    for (const w of waiters.splice(0)) w();
  });
  const exited = new Promise<number | string>((res) => proc.once('exit', (code, sig) => res(code ?? sig ?? -1)));
  void exited.then(() => {
    for (const w of waiters.splice(0)) w();
  });

  const waitForLog: DaemonChild['waitForLog'] = (pred, timeoutMs = 15_000, what = 'log line') =>
    new Promise((res, rej) => {
      let from = 0;
      const timer = setTimeout(() => rej(new Error(`timed out waiting for ${what}; stderr:\n${err.slice(-3000)}`)), timeoutMs);
      const check = (): void => {
        for (; from < lines.length; from++) {
          if (pred(lines[from])) {
            clearTimeout(timer);
            return res(lines[from]);
          }
        }
        if (proc.exitCode !== null || proc.signalCode !== null) {
          clearTimeout(timer);
          return rej(new Error(`daemon exited (${proc.exitCode ?? proc.signalCode}) before ${what}; stderr:\n${err.slice(-3000)}`));
        }
        waiters.push(check);
      };
      check();
    });

  return {
    proc,
    pid: proc.pid!,
    lines,
    stderr: () => err,
    stdout: () => out,
    waitForLog,
    exited,
    async port() {
      const l = await waitForLog((x) => x.msg === 'listening', 15_000, 'listening');
      return Number(String(l.address).split(':').pop());
    },
  };
}

export async function getJson(port: number, path: string): Promise<{ status: number; body: any; text: string; type: string | null }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  const text = await res.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    /* metrics text */
  }
  return { status: res.status, body, text, type: res.headers.get('content-type') };
}

/** Polls until `fn` returns a truthy value. */
type Falsy = null | undefined | false;
export async function eventually<T>(fn: () => Promise<T | Falsy> | T | Falsy, timeoutMs = 15_000, what = 'condition'): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as T;
    } catch (e) {
      last = e;
    }
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Runs a one-shot CLI command (e.g. verify) against the built CLI. */
export function runCliSync(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [MAIN, ...args], { cwd: ROOT, env: cleanEnv({}), encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

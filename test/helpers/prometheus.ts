// A real Prometheus (the Debian `prometheus` package, which .ci/run installs) for the tests: its
// binaries found or a loud failure, a server on 127.0.0.1 on a free port with its data in a temp
// folder, its HTTP API, and a stop by pid. promtool runs synchronously.

import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

const INSTALL_HINT = "install the Debian 'prometheus' package (apt-get install -y prometheus; .ci/run does it), which provides prometheus and promtool";

/** The path of a Prometheus binary; throws (never skips) when it is not installed. */
export function requireBinary(name: 'prometheus' | 'promtool'): string {
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  const path = found.stdout.trim();
  if (found.status !== 0 || !path) throw new Error(`${name} is not installed: ${INSTALL_HINT}`);
  return path;
}

export function promtool(args: string[], input?: string): SpawnSyncReturns<string> {
  return spawnSync(requireBinary('promtool'), args, { encoding: 'utf8', input, timeout: 60_000 });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface RunningPrometheus {
  pid: number;
  url: string;
  /** GET /api/v1/<path>: the `data` of a success, or throws with Prometheus's error text. */
  api<T = unknown>(path: string, params?: Record<string, string>): Promise<T>;
  /** An instant query: the `data` of a success, or throws. */
  query(expr: string): Promise<{ resultType: string; result: Array<{ metric: Record<string, string>; value: [number, string] }> }>;
  log(): string;
  stop(): Promise<void>;
}

async function waitReady(url: string, proc: ChildProcess, log: () => string): Promise<void> {
  const until = Date.now() + 30_000;
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`prometheus exited (${proc.exitCode ?? proc.signalCode}):\n${log().slice(-3000)}`);
    try {
      if ((await fetch(`${url}/-/ready`)).ok) return;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > until) throw new Error(`prometheus was not ready in 30 s:\n${log().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Starts Prometheus with `configYaml` (written into `dir`), data in `dir/data`. */
export async function startPrometheus(dir: string, configYaml: string): Promise<RunningPrometheus> {
  const bin = requireBinary('prometheus');
  const configFile = join(dir, 'prometheus.yml');
  writeFileSync(configFile, configYaml, { mode: 0o600 });
  mkdirSync(join(dir, 'data'), { recursive: true });
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const proc = spawn(bin, [`--config.file=${configFile}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    proc.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d));
    proc.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    const stop = async (): Promise<void> => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      process.kill(proc.pid!, 'SIGTERM');
      const timer = setTimeout(() => proc.exitCode === null && process.kill(proc.pid!, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    };
    try {
      await waitReady(url, proc, () => output);
    } catch (e) {
      lastError = e;
      await stop();
      if (/address already in use/.test(output)) continue; // the free port was taken meanwhile
      throw e;
    }
    const api = async <T>(path: string, params: Record<string, string> = {}): Promise<T> => {
      const res = await fetch(`${url}/api/v1/${path}?${new URLSearchParams(params).toString()}`);
      const body = (await res.json()) as { status: string; data?: T; error?: string; errorType?: string };
      if (body.status !== 'success') throw new Error(`prometheus ${path} ${JSON.stringify(params)}: ${body.errorType}: ${body.error}`);
      return body.data as T;
    };
    return {
      pid: proc.pid!,
      url,
      api,
      query: (expr) => api('query', { query: expr }),
      log: () => output,
      stop,
    };
  }
  throw lastError;
}

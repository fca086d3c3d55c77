// Fault-suite helpers: a rewriting HTTP proxy in front of an emulator, CLI child processes
// (emulator and sync) stopped by pid, and a view-by-view comparison of two databases.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createHttpClient, type HttpClientOptions } from '../../src/api/http-client.js';
import type { ServiceClient } from '../../src/api/port.js';
import type { Dialect } from '../../src/emulator/types.js';
import type { Store } from '../../src/store/port.js';
import { makeHarness, type Harness } from './harness.js';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));
export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** Fails loudly when dist/ is missing (run `npx tsc -p tsconfig.json` or `npm test`). */
export function requireBuild(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first with npx tsc -p tsconfig.json`);
}

// ---------------------------------------------------------------------------------------------
// Proxy

export interface ProxyRequest {
  method: string;
  /** path without query, e.g. /api/collections/abc */
  path: string;
  /** query string without '?', '' when none */
  query: string;
}

/** Returns a replacement body (string) or undefined to pass the answer through unchanged. */
export type Rewrite = (req: ProxyRequest, body: string, status: number) => string | undefined;

export interface RunningProxy {
  baseUrl: string;
  /** requests whose answer was rewritten */
  rewritten: ProxyRequest[];
  setRewrite(fn: Rewrite | null): void;
  stop(): Promise<void>;
}

/** A loopback proxy that buffers each answer and may replace its body (content-length fixed up). */
export async function startProxy(target: string, rewrite: Rewrite | null = null): Promise<RunningProxy> {
  const upstream = new URL(target);
  let current = rewrite;
  const rewritten: ProxyRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = { ...req.headers, host: upstream.host };
      const up = http.request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
        (ur) => {
          const body: Buffer[] = [];
          ur.on('data', (c: Buffer) => body.push(c));
          ur.on('error', () => res.destroy());
          ur.on('end', () => {
            let text = Buffer.concat(body).toString('utf8');
            const [p, ...q] = (req.url ?? '/').split('?');
            const preq = { method: req.method ?? 'GET', path: p!, query: q.join('?') };
            const replaced = current?.(preq, text, ur.statusCode ?? 0);
            if (replaced !== undefined) {
              text = replaced;
              rewritten.push(preq);
            }
            const out = { ...ur.headers };
            delete out['content-length'];
            delete out['transfer-encoding'];
            const buf = Buffer.from(text, 'utf8');
            res.writeHead(ur.statusCode ?? 502, { ...out, 'content-length': String(buf.length) });
            res.end(buf);
          });
        },
      );
      up.on('error', () => res.destroy());
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    rewritten,
    setRewrite: (fn) => {
      current = fn;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// Child processes

export interface Child {
  proc: ChildProcess;
  pid: number;
  out(): string;
  err(): string;
  /** exit code (null when killed by a signal) and signal */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children = new Set<Child>();

/** `node dist/cli/main.js ...args` with a clean env (only PATH/HOME plus `env`). */
export function spawnCli(args: string[], env: Record<string, string> = {}): Child {
  const proc = spawn(process.execPath, [CLI, ...args], {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.on('close', (code, signal) => resolve({ code, signal })),
  );
  const child: Child = { proc, pid: proc.pid!, out: () => out, err: () => err, exited };
  children.add(child);
  void exited.then(() => children.delete(child));
  return child;
}

/** Kills every child this module started that is still running (but `keep`), by pid; waits for them. */
export async function stopChildren(keep: ReadonlyArray<Child | undefined> = []): Promise<void> {
  const live = [...children].filter((c) => !keep.includes(c));
  for (const c of live) {
    try {
      process.kill(c.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  await Promise.all(live.map((c) => c.exited));
}

export interface ReadyEmulator {
  child: Child;
  baseUrl: string;
  apiKey: string;
}

/** Starts `wbsync emulator --port 0 --host 127.0.0.1 ...extra` and waits for its ready line. */
export async function startEmulatorChild(extra: string[]): Promise<ReadyEmulator> {
  const child = spawnCli(['emulator', '--port', '0', '--host', '127.0.0.1', ...extra]);
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const line = child.out().split('\n').find((l) => l.startsWith('{'));
    if (line && child.out().includes('\n')) {
      const ready = JSON.parse(line) as { baseUrl: string; apiKey: string };
      return { child, baseUrl: ready.baseUrl, apiKey: ready.apiKey };
    }
    if (child.proc.exitCode !== null) throw new Error(`emulator exited early: ${child.err()}`);
    await sleep(20);
  }
  throw new Error(`emulator not ready in time: ${child.err()}`);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

// ---------------------------------------------------------------------------------------------
// View comparison

export const VIEWS = ['workspaces', 'members', 'modules', 'collections', 'columns', 'records', 'cells', 'amendments', 'automations', 'activity'] as const;

function viewKey(v: string, r: Record<string, unknown>): string {
  return v === 'members' ? `${String(r.workspace_id)}/${String(r.user_id)}` : String(r.id);
}

/** Every difference between the views of two stores (rows keyed by id; values compared exactly). */
export function diffViews(a: Store, b: Store, views: readonly string[] = VIEWS): string[] {
  const out: string[] = [];
  for (const v of views) {
    const rowsA = a.db.prepare(`SELECT * FROM "${v}"`).all() as Record<string, unknown>[];
    const rowsB = b.db.prepare(`SELECT * FROM "${v}"`).all() as Record<string, unknown>[];
    const mapB = new Map(rowsB.map((r) => [viewKey(v, r), r]));
    const mapA = new Map(rowsA.map((r) => [viewKey(v, r), r]));
    for (const [k, ra] of mapA) {
      const rb = mapB.get(k);
      if (!rb) {
        out.push(`${v} ${k}: only in the first`);
        continue;
      }
      for (const [f, val] of Object.entries(ra)) {
        if (JSON.stringify(val) !== JSON.stringify(rb[f])) out.push(`${v} ${k}.${f}: ${JSON.stringify(val)} vs ${JSON.stringify(rb[f])}`);
      }
    }
    for (const k of mapB.keys()) if (!mapA.has(k)) out.push(`${v} ${k}: only in the second`);
    if (out.length > 50) break;
  }
  return out;
}

/** Row counts per view (to show a comparison was not of two empty databases). */
export function viewCounts(s: Store, views: readonly string[] = VIEWS): Record<string, number> {
  return Object.fromEntries(views.map((v) => [v, (s.db.prepare(`SELECT COUNT(*) AS n FROM "${v}"`).get() as { n: number }).n]));
}

/** A client of the product that talks through a proxy, with tiny backoff for tests. */
export function proxiedClient(proxy: RunningProxy, apiKey: string, opts: Partial<HttpClientOptions> = {}): ServiceClient {
  return createHttpClient({ baseUrl: proxy.baseUrl, apiKey, retries: 2, backoffBaseMs: 1, backoffMaxMs: 2, timeoutMs: 10_000, ...opts });
}

export interface ProxiedHarness {
  h: Harness;
  proxy: RunningProxy;
  client: ServiceClient;
  close(): Promise<void>;
}

/** The demo-seeded harness with a rewriting proxy in front of its emulator and a client through it. */
export async function startProxiedHarness(dialect: Dialect, randomSeed: number): Promise<ProxiedHarness> {
  const h = await makeHarness(dialect, { randomSeed });
  const proxy = await startProxy(h.emu.baseUrl);
  const client = proxiedClient(proxy, h.emu.apiKey);
  return {
    h,
    proxy,
    client,
    async close() {
      await client.close();
      await proxy.stop();
      await h.close();
    },
  };
}

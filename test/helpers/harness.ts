// Integration harness: an in-process emulator, a temporary database, the real client and a pass.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHttpClient } from '../../src/api/http-client.js';
import type { ServiceClient } from '../../src/api/port.js';
import { createLogger } from '../../src/config/logger.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Dialect, EmulatorOptions, RunningEmulator } from '../../src/emulator/types.js';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/port.js';
import { runPass, type PassOptions, type PassResult } from '../../src/sync/pass.js';
import { runCli } from '../../src/cli/run.js';
import { emulatorTarget, type ServiceTarget } from './service-target.js';

export const silentLogger = createLogger({ level: 'silent' });

export function tempDir(prefix = 'wbsync-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function makeClient(emu: RunningEmulator, opts: { apiKey?: string; concurrency?: number; retries?: number } = {}): ServiceClient {
  return createHttpClient({
    baseUrl: emu.baseUrl,
    apiKey: opts.apiKey ?? emu.apiKey,
    concurrency: opts.concurrency ?? 8,
    retries: opts.retries ?? 5,
    backoffBaseMs: 1,
    backoffMaxMs: 5,
    timeoutMs: 10_000,
  });
}

export interface Harness {
  /** The in-process emulator (a live harness has none: touching it throws, naming what was asked). */
  emu: RunningEmulator;
  /** The service the suite writes to: the emulator, or a running service (live-service.ts). */
  target: ServiceTarget;
  dir: string;
  dbPath: string;
  store: Store;
  client: ServiceClient;
  sync(opts?: PassOptions): Promise<PassResult>;
  /** A second database + client on the same emulator (e.g. full vs incremental). */
  openOther(name: string): { store: Store; sync(opts?: PassOptions): Promise<PassResult> };
  close(): Promise<void>;
}

export async function makeHarness(dialect: Dialect, emuOpts: EmulatorOptions = {}): Promise<Harness> {
  const emu = await startEmulator({ dialect, seed: 'demo', ...emuOpts });
  const { dir, cleanup } = tempDir();
  const dbPath = join(dir, 'db', 'wbsync.db');
  const store = openStore(dbPath);
  const client = makeClient(emu);
  const others: Store[] = [];
  return {
    emu,
    target: emulatorTarget(emu),
    dir,
    dbPath,
    store,
    client,
    sync: (opts = {}) => runPass({ client, store, logger: silentLogger }, opts),
    openOther(name) {
      const other = openStore(join(dir, `${name}.db`));
      others.push(other);
      return { store: other, sync: (opts = {}) => runPass({ client, store: other, logger: silentLogger }, opts) };
    },
    async close() {
      store.close();
      for (const o of others) o.close();
      await client.close();
      await emu.stop();
      cleanup();
    },
  };
}

/** A harness on a running service: passes are restricted to the suite's workspace; the emulator
 * is absent, and a suite reaching for it fails saying which emulator-only power it wanted. */
export function makeTargetHarness(target: ServiceTarget, workspaceIds: string[]): Harness {
  const { dir, cleanup } = tempDir();
  const dbPath = join(dir, 'db', 'wbsync.db');
  const store = openStore(dbPath);
  const client = createHttpClient({
    baseUrl: target.baseUrl, apiKey: target.apiKey, concurrency: 8, retries: 5, backoffBaseMs: 10, backoffMaxMs: 200, timeoutMs: 30_000,
  });
  const others: Store[] = [];
  const emu = new Proxy({} as RunningEmulator, {
    get: (_t, prop) => {
      throw new Error(`emulator-only: ${String(prop)} is not available against ${target.label}`);
    },
  });
  const scoped = (opts: PassOptions = {}): PassOptions => ({ workspaceIds, ...opts });
  return {
    emu,
    target,
    dir,
    dbPath,
    store,
    client,
    sync: (opts = {}) => runPass({ client, store, logger: silentLogger }, scoped(opts)),
    openOther(name) {
      const other = openStore(join(dir, `${name}.db`));
      others.push(other);
      return { store: other, sync: (opts = {}) => runPass({ client, store: other, logger: silentLogger }, scoped(opts)) };
    },
    async close() {
      store.close();
      for (const o of others) o.close();
      await client.close();
      cleanup();
    },
  };
}

/** A plain HTTP call to the emulator (not the product's client): for making changes in tests. */
export async function api(
  emu: RunningEmulator,
  method: string,
  path: string,
  body?: unknown,
  key: string = emu.apiKey,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${emu.baseUrl}/api${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* HTML error page */
  }
  return { status: res.status, body: parsed };
}

/** Unwraps `{message, X}` (observed) or returns the object itself (spec). */
export function unwrap(body: any, key: string): any {
  return body && typeof body === 'object' && key in body && typeof body[key] === 'object' ? body[key] : body;
}

/** A workspace holding one module with the named collections (in order), made through the API. */
export async function newBoard(emu: RunningEmulator, name: string, collections: string[]): Promise<{ ws: Record<string, any>; mod: Record<string, any>; cols: Array<Record<string, any>> }> {
  const ws = await apiOk(emu, 'POST', '/workspaces', { name }, 'workspace');
  const mod = await apiOk(emu, 'POST', `/modules/${ws._id}`, { name: 'Board' }, 'module');
  const cols: Array<Record<string, any>> = [];
  for (const c of collections) cols.push(await apiOk(emu, 'POST', `/collections/${mod._id}`, { name: c }, 'collection'));
  return { ws, mod, cols };
}

/** `api` for a write that must succeed: the document under `key` (unwrap), or an error naming the call and the answer. */
export async function apiOk(emu: RunningEmulator, method: string, path: string, body: unknown, key: string): Promise<Record<string, any>> {
  const res = await api(emu, method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
  return unwrap(res.body, key);
}

/** The emulator's dump with rows typed loosely, for tests that read its documents' fields. */
export type LooseDump = { [K in keyof import('../../src/emulator/types.js').EmulatorDump]: Array<Record<string, any>> };
export function dumpOf(emu: RunningEmulator): LooseDump {
  return emu.dump() as LooseDump;
}

/** Rows of a view, as plain objects. */
export function view(store: Store, name: string, where = '', params: unknown[] = []): Record<string, any>[] {
  return store.db.prepare(`SELECT * FROM ${name} ${where}`).all(...params) as Record<string, any>[];
}

/** Runs the CLI in-process with this environment, its stdout and stderr captured. */
export async function runCliCaptured(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { stdout: { write: (s) => void (out += s) }, stderr: { write: (s) => void (err += s) }, env });
  return { code, out, err };
}

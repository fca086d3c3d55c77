// The emulator's in-process surface: what tests, the benchmark and the demo use.
// The emulator is an in-memory HTTP server faithful to the service in two dialects.

import type { ManualClock } from '../domain/clock.js';

export type Dialect = 'spec' | 'observed';
export type SeedName = 'none' | 'demo' | 'small' | 'large';

export interface SeedParams {
  /** workspaces for small/large (default 1) */
  workspaces?: number;
  /** modules per workspace (large default 20) */
  modules?: number;
  /** top-level records per module (large default 500) */
  records?: number;
  /** board columns per module (large default 12) */
  columns?: number;
  /** collections per module (large default 5) */
  collections?: number;
}

export interface EmulatorOptions {
  dialect?: Dialect; // default 'spec'
  seed?: SeedName; // default 'none'
  seedParams?: SeedParams;
  host?: string; // default 127.0.0.1
  port?: number; // default 0 (a free port)
  /** Key of the first user (the owner of every seeded workspace). Generated when absent. */
  apiKey?: string;
  /** Seed of the deterministic id / key generator. Default 1. */
  randomSeed?: number;
  /** Start time of the injected clock (default 2026-01-15T09:00:00.000Z). */
  startTime?: Date;
  /**
   * 'manual': time moves only through clock.advance() (plus 1 ms per write so writes stay ordered
   * unless a test pins them to one millisecond with clock.freeze()). 'real': wall time.
   * Default 'manual' in-process, 'real' for the CLI.
   */
  clockMode?: 'manual' | 'real';
  latencyMs?: number;
  /** Probability 0..1 that a request fails with a random 500/503/connection reset. */
  failRate?: number;
  /** observed dialect: how long a request stalls while the database is down (default 10000). */
  dbDownStallMs?: number;
  /**
   * observed dialect: how long a logged write waits between its module touch and its feed row,
   * stamped when inserted; other requests run in between (default 2; 0 still stamps it after).
   */
  feedRowDelayMs?: number;
  /** Request body cap in bytes (default 1 MiB); larger bodies get 413. */
  maxBodyBytes?: number;
  /** Activity retention in days reported and enforced (default 90; 0 = forever). */
  retentionDays?: number;
  /** The people to create instead of the default three (the first holds `apiKey`); a restore
   * drill creates one per member of the snapshot. The seeds other than 'none' need three. */
  people?: EmulatorPerson[];
  /** Keep every request in the request log (default true); false counts them only (a drill's
   * scratch service, which answers hundreds of thousands). */
  keepRequestLog?: boolean;
}

export interface EmulatorPerson {
  firstName: string;
  lastName: string;
  email: string;
}

export interface EmulatorUser {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  apiKey: string;
  /** A session token accepted as `Authorization: Bearer <token>`; unaffected by key rotation. */
  sessionToken: string;
}

export type FaultMode = 'status' | 'drop' | 'stall' | 'truncate';

export interface FaultRule {
  /** HTTP method to match; any when absent. */
  method?: string;
  /** Route name as in the request log (e.g. 'GET /records/{collectionId}') or a RegExp on the path. */
  route: string | RegExp;
  /** Fail the Nth matching request (1-based) from now; default 1. */
  nth?: number;
  /** How many consecutive matching requests to fail from the Nth on; default 1. */
  times?: number;
  mode?: FaultMode; // default 'status'
  status?: number; // for 'status', default 500
  stallMs?: number; // for 'stall', default 30000
}

export interface RequestLogEntry {
  method: string;
  /** Path as requested, without query string. */
  path: string;
  query: string;
  /** Route name: method + the spec's path template, e.g. 'GET /records/{collectionId}'; 'UNMATCHED' otherwise. */
  route: string;
  status: number;
  at: string;
}

export interface RequestLog {
  entries(): RequestLogEntry[];
  /** Count per route name. */
  counts(): Record<string, number>;
  total(): number;
  clear(): void;
}

export interface EmulatorClock extends ManualClock {
  /** Pin time: every write gets this exact millisecond until unfreeze(). */
  freeze(): void;
  unfreeze(): void;
}

/** Plain-JSON dump of the whole state, internal shapes, deleted/archived rows included with flags. */
export interface EmulatorDump {
  users: Array<Record<string, unknown>>;
  workspaces: Array<Record<string, unknown>>;
  members: Array<Record<string, unknown>>;
  modules: Array<Record<string, unknown>>;
  collections: Array<Record<string, unknown>>;
  columns: Array<Record<string, unknown>>;
  records: Array<Record<string, unknown>>;
  values: Array<Record<string, unknown>>;
  amendments: Array<Record<string, unknown>>;
  automations: Array<Record<string, unknown>>;
  activity: Array<Record<string, unknown>>;
  grants: Array<Record<string, unknown>>;
  notifications: Array<Record<string, unknown>>;
}

export interface RunningEmulator {
  baseUrl: string;
  /** Key of users[0]. */
  apiKey: string;
  users: EmulatorUser[];
  dialect: Dialect;
  clock: EmulatorClock;
  requestLog: RequestLog;
  faults: {
    add(rule: FaultRule): void;
    setDatabaseDown(down: boolean): void;
    setLatency(ms: number): void;
    setFailRate(rate: number): void;
    clear(): void;
  };
  /** Rotate a user's key as POST /api-key/generate would (old key dies); returns the new key. */
  rotateKey(userId: string): string;
  /** Back to the freshly seeded state; clears faults and the request log. */
  reset(): void;
  dump(): EmulatorDump;
  /** A drill's scratch service: the content of these modules leaves memory once read back
   * (records, values, notes, their feed rows); the modules, columns and recipes stay. */
  forgetModuleContent(moduleIds: readonly string[]): void;
  /** Settle pending asynchronous automation runs (observed runs them after the response). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/** The ready line the CLI prints on stdout. */
export interface ReadyLine {
  baseUrl: string;
  apiKey: string;
  users: Array<{ id: string; email: string; apiKey: string }>;
}

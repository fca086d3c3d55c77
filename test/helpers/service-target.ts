// What the randomized suites need from the service they write to, so the same suite runs against
// the in-process emulator and against a running service (WBSYNC_LIVE_URL + key files). The
// emulator answers from its own state; a live service from its API (live-service.ts), with the
// substitutes each suite prints when it runs live.

import { readFileSync } from 'node:fs';
import type { Dialect, RunningEmulator } from '../../src/emulator/types.js';
import { api, dumpOf, type LooseDump } from './harness.js';

export interface ServiceTarget {
  readonly label: string;
  readonly live: boolean;
  /** The dialect whose expectations apply: a live service is held to `observed`. */
  readonly dialect: Dialect;
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Signed-in users; [0] holds apiKey. */
  readonly users: ReadonlyArray<{ id: string; apiKey: string }>;
  /** A plain HTTP call (not the product's client), with another user's key when given. */
  call(method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; body: any }>;
  /** The service's state in the emulator's dump shape (live: read through the API). */
  dump(): Promise<LooseDump>;
  /** Let time pass between writes (emulator: its clock; live: a short real pause). */
  advance(ms: number): Promise<void>;
  /** Wait for asynchronous automation runs to finish. */
  idle(): Promise<void>;
  /** Send these writes so they share one millisecond (emulator: a frozen clock; live: all at once). */
  together(writes: Array<() => Promise<unknown>>): Promise<void>;
}

/** The emulator itself, or a target as it is. */
export function asTarget(service: RunningEmulator | ServiceTarget): ServiceTarget {
  return 'requestLog' in service ? emulatorTarget(service) : service;
}

export function emulatorTarget(emu: RunningEmulator): ServiceTarget {
  return {
    label: `emulator ${emu.dialect}`,
    live: false,
    dialect: emu.dialect,
    baseUrl: emu.baseUrl,
    get apiKey() {
      return emu.apiKey;
    },
    get users() {
      return emu.users.map((u) => ({ id: u.id, apiKey: u.apiKey }));
    },
    call: (method, path, body, key) => api(emu, method, path, body, key),
    dump: async () => dumpOf(emu),
    advance: async (ms) => emu.clock.advance(ms),
    idle: () => emu.idle(),
    together: async (writes) => {
      emu.clock.freeze();
      try {
        for (const w of writes) await w();
      } finally {
        emu.clock.unfreeze();
      }
    },
  };
}

/** The one switch: WBSYNC_LIVE_URL with WBSYNC_LIVE_KEY_FILE (or WBSYNC_LIVE_KEY), and optionally
 * WBSYNC_LIVE_KEY2_FILE (or WBSYNC_LIVE_KEY2) for a second member. Null when not set. */
export interface LiveSettings {
  baseUrl: string;
  apiKey: string;
  apiKey2: string | null;
}

function keyFrom(fileVar: string, valueVar: string): string | null {
  const file = process.env[fileVar];
  if (file) {
    const key = readFileSync(file, 'utf8').trim();
    if (!key) throw new Error(`${fileVar}: ${file} is empty; put the service's API key in it`);
    return key;
  }
  const value = process.env[valueVar];
  return value ? value.trim() : null;
}

export function liveSettings(): LiveSettings | null {
  const baseUrl = process.env.WBSYNC_LIVE_URL;
  if (!baseUrl) return null;
  const apiKey = keyFrom('WBSYNC_LIVE_KEY_FILE', 'WBSYNC_LIVE_KEY');
  if (!apiKey) throw new Error('WBSYNC_LIVE_URL is set without a key: set WBSYNC_LIVE_KEY_FILE to a file holding the API key');
  return { baseUrl: baseUrl.replace(/\/+$/, ''), apiKey, apiKey2: keyFrom('WBSYNC_LIVE_KEY2_FILE', 'WBSYNC_LIVE_KEY2') };
}

/** Targets of a randomized suite: both emulator dialects, and the live service when the switch is
 * on. WBSYNC_LIVE_ONLY=1 leaves the emulator out (a run against the live service alone). */
export function suiteTargets(): Array<'spec' | 'observed' | 'live'> {
  const live = liveSettings() !== null;
  if (live && process.env.WBSYNC_LIVE_ONLY === '1') return ['live'];
  return live ? ['spec', 'observed', 'live'] : ['spec', 'observed'];
}

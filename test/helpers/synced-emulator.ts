// The set-up most CLI tests share: an in-process emulator (demo seed unless told), a temporary
// directory holding the database (and, when asked, a config file and a key file, mode 0600), the
// environment that points wbsync at them, and a first `wbsync sync` that must succeed. `cli(...)`
// runs the CLI in-process with that environment; `stop()` stops the emulator and removes the
// directory.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startEmulator } from '../../src/emulator/index.js';
import type { Dialect, EmulatorOptions, RunningEmulator } from '../../src/emulator/types.js';
import { runCliCaptured, tempDir } from './harness.js';

export interface SyncedEmulatorOptions {
  dialect: Dialect;
  /** Further emulator options (the seed is 'demo' unless given here). */
  emulator?: Omit<EmulatorOptions, 'dialect'>;
  /** WBSYNC_LOG_LEVEL (default 'silent'). */
  logLevel?: string;
  /** Written to config.json in the directory and named by WBSYNC_CONFIG. */
  config?: Record<string, unknown>;
  /** The key in a file (WBSYNC_API_KEY_FILE) rather than in WBSYNC_API_KEY. */
  keyFile?: boolean;
  /** How many syncs to run before the tests (default 1; 0 for none). */
  syncs?: number;
}

export interface SyncedEmulator {
  emu: RunningEmulator;
  dir: string;
  /** The database file (WBSYNC_DB). */
  db: string;
  env: NodeJS.ProcessEnv;
  cli(...argv: string[]): ReturnType<typeof runCliCaptured>;
  stop(): Promise<void>;
}

export async function syncedEmulator(opts: SyncedEmulatorOptions): Promise<SyncedEmulator> {
  const emu = await startEmulator({ seed: 'demo', ...opts.emulator, dialect: opts.dialect });
  const { dir, cleanup } = tempDir();
  const stop = async (): Promise<void> => {
    await emu.stop();
    cleanup();
  };
  try {
    const db = join(dir, 'w.db');
    const env: NodeJS.ProcessEnv = { WBSYNC_BASE_URL: emu.baseUrl, WBSYNC_DB: db, WBSYNC_LOG_LEVEL: opts.logLevel ?? 'silent' };
    if (opts.keyFile) {
      env.WBSYNC_API_KEY_FILE = join(dir, 'api.key');
      writeFileSync(env.WBSYNC_API_KEY_FILE, `${emu.apiKey}\n`, { mode: 0o600 });
    } else env.WBSYNC_API_KEY = emu.apiKey;
    if (opts.config) {
      env.WBSYNC_CONFIG = join(dir, 'config.json');
      writeFileSync(env.WBSYNC_CONFIG, JSON.stringify(opts.config), { mode: 0o600 });
    }
    const cli = (...argv: string[]): ReturnType<typeof runCliCaptured> => runCliCaptured(argv, env);
    for (let i = 0; i < (opts.syncs ?? 1); i++) {
      const r = await cli('sync');
      if (r.code !== 0) throw new Error(`the set-up's sync ${i + 1} exited ${r.code}: ${r.err}`);
    }
    return { emu, dir, db, env, cli, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

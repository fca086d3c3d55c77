// The shutdown deadline, in-process: a pass stuck on a request that does not answer must not
// hold the daemon past its deadline; the database is closed under it and the lock released.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config/schema.js';
import { createLogger } from '../../src/config/logger.js';
import { runDaemon } from '../../src/daemon/daemon.js';
import { isLockHeld } from '../../src/store/lock.js';
import { startEmulator } from '../../src/emulator/index.js';
import { tempDir } from '../helpers/harness.js';

const { dir, cleanup } = tempDir('wbsync-daemon-deadline-');
afterAll(() => cleanup());

it('should close the database and release the lock when the pass does not stop before the deadline', async () => {
  const emu = await startEmulator({ dialect: 'spec', seed: 'demo' });
  try {
    emu.faults.setLatency(4_000); // every request hangs longer than the deadline
    const db = join(dir, 'wbsync.db');
    const config = ConfigSchema.parse({
      baseUrl: emu.baseUrl,
      db,
      schedule: { incremental: '*/1 * * * * *', full: '0 0 3 * * *' },
      daemon: { listen: '127.0.0.1:0' },
      http: { retries: 0, timeoutMs: 20_000 },
    });
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger({ level: 'info', secrets: [emu.apiKey], write: (l) => lines.push(JSON.parse(l) as Record<string, unknown>) });
    const stop = new AbortController();
    const done = runDaemon({ loaded: { config, apiKey: emu.apiKey, apiKeySource: 'test' }, logger, signal: stop.signal, stopDeadlineMs: 300 });
    const t = Date.now();
    while (!lines.some((l) => l.msg === 'pass started')) {
      if (Date.now() - t > 10_000) throw new Error('no pass started');
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(isLockHeld(db)).toBe(true); // the pass holds the write lock
    const t0 = Date.now();
    stop.abort('SIGTERM');
    await done;
    expect(Date.now() - t0).toBeLessThan(2_500);
    expect(lines.some((l) => String(l.msg).startsWith('the pass did not stop in time'))).toBe(true);
    expect(lines.at(-1)?.msg).toBe('stopped');
    expect(isLockHeld(db, 'daemon') || isLockHeld(db)).toBe(false);
  } finally {
    emu.faults.setLatency(0);
    await emu.stop();
  }
});

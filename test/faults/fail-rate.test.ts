// 10% of requests fail at random (500 / 503 / connection reset): with enough retries a full
// sync completes and every view equals a fault-free sync of the same emulator.

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient } from '../../src/api/http-client.js';
import type { ServiceClient } from '../../src/api/port.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Dialect, RunningEmulator } from '../../src/emulator/types.js';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/port.js';
import { runPass } from '../../src/sync/pass.js';
import { diffViews, viewCounts, VIEWS } from '../helpers/fault-kit.js';
import { makeClient, silentLogger, tempDir } from '../helpers/harness.js';

describe.each(['spec', 'observed'] as Dialect[])('10%% random failures (%s dialect)', (dialect) => {
  let emu: RunningEmulator;
  let tmp: ReturnType<typeof tempDir>;
  const stores: Store[] = [];
  const clients: ServiceClient[] = [];

  beforeAll(async () => {
    emu = await startEmulator({ dialect, seed: 'demo', randomSeed: 4242 });
    tmp = tempDir();
  });
  afterAll(async () => {
    for (const s of stores) s.close();
    for (const c of clients) await c.close();
    await emu?.stop();
    tmp?.cleanup();
  });

  it('a full sync completes with retries and its views equal a fault-free sync', async () => {
    const faulty = openStore(join(tmp.dir, 'faulty.db'));
    const clean = openStore(join(tmp.dir, 'clean.db'));
    stores.push(faulty, clean);
    const flaky = createHttpClient({
      baseUrl: emu.baseUrl,
      apiKey: emu.apiKey,
      concurrency: 8,
      retries: 8,
      backoffBaseMs: 1,
      backoffMaxMs: 4,
      timeoutMs: 10_000,
    });
    const steady = makeClient(emu);
    clients.push(flaky, steady);

    emu.faults.setFailRate(0.1);
    emu.requestLog.clear();
    const r1 = await runPass({ client: flaky, store: faulty, logger: silentLogger }, { full: true });
    const failedAnswers = emu.requestLog.entries().filter((e) => e.status >= 500).length;
    emu.faults.setFailRate(0);

    expect(r1.status).toBe('complete');
    expect(r1.failures).toEqual([]);
    // the faults really happened and were retried
    expect(r1.retries).toBeGreaterThan(0);
    expect(failedAnswers + r1.retries).toBeGreaterThan(0);

    const r2 = await runPass({ client: steady, store: clean, logger: silentLogger }, { full: true });
    expect(r2.status).toBe('complete');
    expect(r2.retries).toBe(0);

    const counts = viewCounts(clean);
    for (const v of VIEWS) expect(counts[v], v).toBeGreaterThan(0);
    expect(viewCounts(faulty)).toEqual(counts);
    expect(diffViews(faulty, clean)).toEqual([]);
    expect(faulty.verify().problems).toEqual([]);
  });
});

// Daemon health against the emulator's faults: a rotated key is "authentication failed" until
// the key is replaced and the daemon restarted; the observed dialect's database outage (401s to
// key callers) is an outage, "service unreachable", that heals by itself and logs "recovered";
// repeated failures are logged once a minute, not once a tick.

import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/types.js';
import { tempDir } from '../helpers/harness.js';
import { eventually, getJson, killAll, startDaemon, writeConfig } from './daemon-harness.js';

describe('daemon health', () => {
  let dir: string;
  let cleanup: () => void;
  const emus: RunningEmulator[] = [];
  beforeAll(() => {
    ({ dir, cleanup } = tempDir('wbsync-daemon-health-'));
  });
  afterEach(async () => {
    await killAll();
  });
  afterAll(async () => {
    await killAll();
    for (const e of emus) await e.stop();
    cleanup?.();
  });

  it('should turn 503 "authentication failed" when the key is rotated, and be healthy after the key is replaced and the daemon restarted', async () => {
    const emu = await startEmulator({ dialect: 'spec', seed: 'demo' });
    emus.push(emu);
    const cfg = writeConfig(dir, 'rot', { db: join(dir, 'rot', 'wbsync.db') });
    const d1 = startDaemon(cfg, emu.baseUrl, emu.apiKey);
    const port1 = await d1.port();
    await eventually(async () => (await getJson(port1, '/healthz')).status === 200, 20_000, 'healthy');

    const newKey = emu.rotateKey(emu.users[0].id);
    const bad = await eventually(async () => {
      const h = await getJson(port1, '/healthz');
      return h.status === 503 && h.body.reason === 'authentication failed' ? h : null;
    }, 15_000, '503 authentication failed');
    expect(bad.body).toMatchObject({ status: 'unhealthy', lastError: { code: 'auth' } });
    expect(bad.body.lastSuccess).toEqual(expect.any(String));
    expect(d1.lines.some((l) => l.msg === 'pass failed: authentication failed')).toBe(true);
    const metrics = await getJson(port1, '/metrics');
    expect(metrics.text).toMatch(/^wbsync_healthy 0$/m);
    expect(metrics.text).toMatch(/^wbsync_passes_total\{kind="incremental",status="failed"\} [1-9]/m);
    expect(metrics.text).toMatch(/^wbsync_http_requests_total\{class="4xx"\} [1-9]/m);

    d1.proc.kill('SIGTERM');
    expect(await d1.exited).toBe(0);
    const d2 = startDaemon(cfg, emu.baseUrl, newKey);
    const port2 = await d2.port();
    const good = await eventually(async () => {
      const h = await getJson(port2, '/healthz');
      return h.status === 200 ? h : null;
    }, 15_000, 'healthy with the new key');
    expect(good.body.status).toBe('ok');
    expect(d2.stderr()).not.toContain(newKey);
    expect(d1.stderr()).not.toContain(emu.apiKey);
  });

  it('should report the observed database outage (401 to key callers) as "service unreachable", not a bad key, rate-limit its log, and recover', async () => {
    const emu = await startEmulator({ dialect: 'observed', seed: 'demo', dbDownStallMs: 50 });
    emus.push(emu);
    const d = startDaemon(writeConfig(dir, 'down', { db: join(dir, 'down', 'wbsync.db') }), emu.baseUrl, emu.apiKey);
    const port = await d.port();
    await eventually(async () => (await getJson(port, '/healthz')).status === 200, 20_000, 'healthy');

    emu.faults.setDatabaseDown(true);
    const down = await eventually(async () => {
      const h = await getJson(port, '/healthz');
      return h.status === 503 ? h : null;
    }, 15_000, '503 during the outage');
    expect(down.body.reason).toBe('service unreachable');
    expect(down.body.lastError.code).toBe('unreachable');
    // several one-second ticks fail the same way: one error line, the rest counted
    await new Promise((r) => setTimeout(r, 3_500));
    const failedLines = d.lines.filter((l) => String(l.msg).startsWith('pass failed'));
    expect(failedLines.length).toBe(1);
    expect(failedLines[0].msg).toBe('pass failed: service unreachable');
    expect(d.stderr()).not.toContain('authentication failed');
    expect(d.lines.filter((l) => l.msg === 'request retry').length).toBeLessThanOrEqual(3);

    emu.faults.setDatabaseDown(false);
    await d.waitForLog((l) => l.msg === 'recovered', 15_000, 'recovered');
    expect((await getJson(port, '/healthz')).status).toBe(200);
    d.proc.kill('SIGTERM');
    expect(await d.exited).toBe(0);
    // the suppressed repeats are reported at the latest when the daemon stops
    expect(d.lines.some((l) => String(l.msg).startsWith('pass failed') && Number(l.suppressed) > 0)).toBe(true);
  });
});

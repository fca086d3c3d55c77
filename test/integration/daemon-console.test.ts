// The daemon serves the web console under /ui/ on daemon.listen, beside /healthz and /metrics, with
// its own health on the overview; beyond loopback without ui.tokenFile it leaves the console out
// (logged) and keeps serving the scrapers.

import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/types.js';
import { tempDir } from '../helpers/harness.js';
import { eventually, getJson, killAll, startDaemon, writeConfig } from './daemon-harness.js';

async function page(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; csp: string | null }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers, redirect: 'manual' });
  return { status: res.status, text: await res.text(), csp: res.headers.get('content-security-policy') };
}

describe('daemon web console', () => {
  let dir: string;
  let cleanup: () => void;
  let emu: RunningEmulator;
  beforeAll(async () => {
    ({ dir, cleanup } = tempDir('wbsync-daemon-ui-'));
    emu = await startEmulator({ dialect: 'observed', seed: 'demo' });
  });
  afterEach(async () => {
    await killAll();
  });
  afterAll(async () => {
    await killAll();
    await emu?.stop();
    cleanup?.();
  });

  it('serves /ui/ with the daemon health while passes run', async () => {
    const cfg = writeConfig(dir, 'ui', { db: join(dir, 'ui', 'wbsync.db') });
    const d = startDaemon(cfg, emu.baseUrl, emu.apiKey);
    const port = await d.port();
    await eventually(async () => (await getJson(port, '/healthz')).status === 200, 20_000, 'healthy');
    const o = await page(port, '/ui/');
    expect(o.status).toBe(200);
    expect(o.csp).toMatch(/default-src 'none'/);
    expect(o.text).toMatch(/<span class="pill ok">ok<\/span>/);
    expect(o.text).not.toContain('no daemon in this process');
    expect(o.text).not.toContain(emu.apiKey);
    const s = await page(port, '/ui/snapshots');
    expect(s.text).toMatch(/#1<\/a><\/td>\s*<td>full<\/td>/);
    const b = await page(port, '/ui/browse');
    expect(b.text).toContain('Sales Pipeline');
    expect((await page(port, '/ui/nowhere')).status).toBe(404);
    expect((await getJson(port, '/healthz')).status).toBe(200);
    expect((await page(port, '/metrics')).text).toContain('wbsync_');
  });

  it('beyond loopback without ui.tokenFile: no console, scrapers served, a warning logged', async () => {
    const cfg = writeConfig(dir, 'open', { db: join(dir, 'open', 'wbsync.db'), extra: { daemon: { listen: '0.0.0.0:0' } } });
    const d = startDaemon(cfg, emu.baseUrl, emu.apiKey);
    await d.waitForLog((l) => l.msg === 'web console not served: daemon.listen is beyond loopback and ui.tokenFile is not set', 15_000, 'console warning');
    const port = await d.port();
    expect((await page(port, '/ui/')).status).toBe(404);
    await eventually(async () => (await getJson(port, '/healthz')).status === 200, 20_000, 'healthy');
  });
});

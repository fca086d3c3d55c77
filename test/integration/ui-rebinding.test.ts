// DNS rebinding and cross-site reads against the console, over plain HTTP requests shaped like the
// attack: a Host naming another site (what a rebound name sends), `127.0.0.1.nip.io`, an empty or
// missing Host, and another origin's fetch metadata. `wbsync ui` and the daemon's /ui/ refuse them
// all without a byte of the backup; /healthz and /metrics follow daemon.listen (loopback: the same
// rule; beyond: any Host for scrapers, still no cross-site browser reads).

import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/types.js';
import { tempDir } from '../helpers/harness.js';
import { buildConsoleDb, serveConsole, type ConsoleDb, type ServedConsole } from '../helpers/ui-kit.js';
import { eventually, getJson, killAll, startDaemon, writeConfig } from './daemon-harness.js';

/** One GET with exactly these headers (`host: null`: no Host header at all). */
function raw(port: number, path: string, headers: Record<string, string | null>): Promise<{ status: number; text: string }> {
  const h = Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== null)) as Record<string, string>;
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', headers: h, setHost: headers.host === undefined }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

const attacks = (port: number): Array<[string, Record<string, string | null>]> => [
  ['a foreign Host', { host: `evil.example:${port}` }],
  ['a rebinding name for 127.0.0.1', { host: `127.0.0.1.nip.io:${port}` }],
  ['an empty Host', { host: '' }],
  ['no Host', { host: null }],
  ['another port on loopback', { host: `127.0.0.1:${port + 1}` }],
  ['another origin, cross-site', { host: `127.0.0.1:${port}`, origin: 'http://evil.example', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' }],
  ['another loopback origin', { host: `127.0.0.1:${port}`, origin: `http://localhost:${port + 1}`, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' }],
  ['a same-site subresource', { host: `localhost:${port}`, 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' }],
];

describe('wbsync ui against rebinding-shaped requests', () => {
  let db: ConsoleDb;
  let c: ServedConsole;
  beforeAll(async () => {
    db = await buildConsoleDb('observed');
    c = await serveConsole(db.h.dbPath);
  }, 120_000);
  afterAll(async () => {
    await c?.close();
    await db?.h.close();
  });

  it('refuses each without a byte of the backup', async () => {
    const port = c.server.port;
    for (const path of ['/ui/browse', '/ui/', `/ui/module/${db.hiringModuleId}`, '/ui/search?q=Rejected', '/']) {
      for (const [what, headers] of attacks(port)) {
        const r = await raw(port, path, headers);
        expect([400, 403, 421], `${what} ${path}`).toContain(r.status);
        expect(r.text, `${what} ${path}`).not.toMatch(/Hiring|Sales Pipeline|Product Roadmap|<html/i);
        // without any Host, node:http itself answers 400 (HTTP/1.1 requires one) before the console sees it
        if (what !== 'no Host') expect(r.text, `${what} ${path}`).toMatch(/^refused: /);
      }
    }
  });

  it('answers its own names: 127.0.0.1, localhost and [::1] with its port, and a followed link', async () => {
    const port = c.server.port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      const r = await raw(port, '/ui/browse', { host });
      expect(r.status, host).toBe(200);
      expect(r.text).toContain('Hiring');
    }
    const nav = await raw(port, '/ui/browse', { host: `127.0.0.1:${port}`, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' });
    expect(nav.status).toBe(200);
    const same = await raw(port, '/ui/browse', { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}`, 'sec-fetch-site': 'same-origin' });
    expect(same.status).toBe(200);
  });
});

describe('the daemon against rebinding-shaped requests', () => {
  let dir: string;
  let cleanup: () => void;
  let emu: RunningEmulator;
  beforeAll(async () => {
    ({ dir, cleanup } = tempDir('wbsync-daemon-rebind-'));
    emu = await startEmulator({ dialect: 'spec', seed: 'demo' });
  });
  afterEach(async () => {
    await killAll();
  });
  afterAll(async () => {
    await killAll();
    await emu?.stop();
    cleanup?.();
  });

  it('on loopback: /ui/, /healthz and /metrics refuse foreign hosts and other sites; its own names are served', async () => {
    const d = startDaemon(writeConfig(dir, 'loop', { db: join(dir, 'loop', 'wbsync.db') }), emu.baseUrl, emu.apiKey);
    const port = await d.port();
    await eventually(async () => (await getJson(port, '/healthz')).status === 200, 20_000, 'healthy');
    await eventually(async () => (await raw(port, '/ui/browse', { host: `127.0.0.1:${port}` })).text.includes('Sales Pipeline'), 20_000, 'a pass in the console');
    for (const path of ['/ui/browse', '/ui/', '/healthz', '/metrics']) {
      for (const [what, headers] of attacks(port)) {
        const r = await raw(port, path, headers);
        expect([400, 403, 421], `${what} ${path}`).toContain(r.status);
        expect(r.text, `${what} ${path}`).not.toMatch(/Sales Pipeline|wbsync_|"status"/);
      }
    }
    expect((await raw(port, '/metrics', { host: `localhost:${port}` })).text).toContain('wbsync_');
    expect((await raw(port, '/ui/browse', { host: `localhost:${port}` })).text).toContain('Sales Pipeline');
  });

  it('beyond loopback: scrapers reach /healthz and /metrics by any name; another site still cannot read them', async () => {
    const d = startDaemon(writeConfig(dir, 'wide', { db: join(dir, 'wide', 'wbsync.db'), extra: { daemon: { listen: '0.0.0.0:0' } } }), emu.baseUrl, emu.apiKey);
    const port = await d.port();
    await eventually(async () => (await raw(port, '/healthz', { host: `backup-host.internal:${port}` })).status === 200, 20_000, 'healthy by any name');
    expect((await raw(port, '/metrics', { host: `10.1.2.3:${port}` })).text).toContain('wbsync_');
    const cross = await raw(port, '/metrics', { host: `backup-host.internal:${port}`, origin: 'http://evil.example', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' });
    expect(cross.status).toBe(403);
    expect(cross.text).not.toContain('wbsync_');
  });
});

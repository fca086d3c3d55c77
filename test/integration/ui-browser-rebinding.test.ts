// A hostile web page in a real browser (Debian's chromium through puppeteer-core) tries to read the
// token-less loopback console:
//  - by DNS rebinding: the page is at http://evil.example:PORT (the console's port), and the name
//    then resolves to 127.0.0.1 (chromium's --host-resolver-rules stands in for the attacker's DNS;
//    the page's own HTML is served by request interception, as the attacker's server did before
//    the rebind), so its fetch('/ui/browse') is same-origin to the browser;
//  - from another loopback origin (http://localhost:OTHER and http://127.0.0.2:OTHER, real servers)
//    with fetch in both CORS modes.
// None of them reads a byte: the console refuses the foreign Host and the cross-site requests.

import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsoleDb, serveConsole, type ConsoleDb, type ServedConsole } from '../helpers/ui-kit.js';

/** The attacker's script: read the console's pages and leave what it got in the title. */
const ATTACK = (target: string): string => `<!doctype html><html><head><title>waiting</title></head><body><script>
(async () => {
  const got = [];
  for (const mode of ['cors', 'no-cors']) {
    try {
      const r = await fetch(${JSON.stringify(target)}, { mode, credentials: 'include' });
      got.push(mode + ':' + r.status + ':' + (await r.text()).slice(0, 20000));
    } catch (e) {
      got.push(mode + ':error:' + String(e));
    }
  }
  window.__got = got.join('\\n');
  document.title = 'done';
})();
</script></body></html>`;

describe('a hostile page in chromium cannot read the console', () => {
  let db: ConsoleDb;
  let c: ServedConsole;
  let browser: Browser;
  let profile: string;
  const others: Server[] = [];
  const consoleAnswers: Array<{ url: string; origin: string; status: number }> = [];

  beforeAll(async () => {
    db = await buildConsoleDb('observed');
    c = await serveConsole(db.h.dbPath);
    // what the console answered, as its listener saw it (a CORS-blocked answer never reaches the page)
    const handle = c.ui.handle.bind(c.ui);
    c.ui.handle = (req, res) => {
      res.on('finish', () => consoleAnswers.push({ url: `http://${req.headers.host ?? ''}${req.url ?? ''}`, origin: String(req.headers.origin ?? ''), status: res.statusCode }));
      handle(req, res);
    };
    profile = mkdtempSync(join(tmpdir(), 'wbsync-chromium-rebind-'));
    browser = await puppeteer.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: [
        '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync',
        `--user-data-dir=${profile}`,
        // the attacker's DNS after the rebind: the page's name now points at the console
        '--host-resolver-rules=MAP evil.example 127.0.0.1',
        // not every browser protects local networks (Firefox, Safari, older Chromes): the console must hold without it
        '--disable-features=LocalNetworkAccessChecks,PrivateNetworkAccessRespectPreflightResults,BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights',
      ],
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    for (const s of others) await new Promise((r) => s.close(r));
    await c?.close();
    await db?.h.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  async function attackPage(): Promise<Page> {
    return browser.newPage();
  }

  async function result(page: Page): Promise<string> {
    await page.waitForFunction('document.title === "done"', { timeout: 20_000 });
    return (await page.evaluate('window.__got')) as string;
  }

  it('by DNS rebinding (same origin to the browser): the console refuses the foreign Host', async () => {
    const port = c.server.port;
    const origin = `http://evil.example:${port}`;
    const page = await attackPage();
    await page.setRequestInterception(true);
    page.on('request', (r) => {
      // before the rebind: the attacker's server hands out the page; everything after goes to "its" address
      if (r.url() === `${origin}/`) void r.respond({ status: 200, contentType: 'text/html', body: ATTACK('/ui/browse') });
      else void r.continue();
    });
    await page.goto(`${origin}/`);
    const got = await result(page);
    // the request reached the console (the rebind worked) and came back refused
    expect(got).toMatch(/^cors:421:refused: Host "evil\.example:\d+" is not this console's/m);
    for (const name of ['Hiring', 'Sales Pipeline', 'Product Roadmap', 'Rejected']) expect(got).not.toContain(name);
    await page.close();
  });

  it('from another loopback origin (localhost:OTHER, 127.0.0.2:OTHER): nothing readable, and the console refused', async () => {
    for (const host of ['localhost', '127.0.0.2']) {
      const target = `http://127.0.0.1:${c.server.port}/ui/browse`;
      const server = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(ATTACK(target));
      });
      others.push(server);
      await new Promise<void>((r) => server.listen(0, host === 'localhost' ? '127.0.0.1' : host, r));
      const page = await attackPage();
      const before = consoleAnswers.length;
      await page.goto(`http://${host}:${(server.address() as AddressInfo).port}/`);
      const got = await result(page);
      // the browser shows the page nothing: CORS fails, no-cors is opaque or blocked (CORP)
      expect(got, host).toMatch(/^cors:error:/m);
      expect(got, host).toMatch(/^no-cors:(0:$|error:)/m);
      for (const name of ['Hiring', 'Sales Pipeline', 'Product Roadmap']) expect(got).not.toContain(name);
      // and the console itself answered nothing but refusals
      const seen = consoleAnswers.slice(before).filter((a) => a.url === target);
      expect(seen.length, host).toBeGreaterThan(0);
      for (const a of seen) {
        expect(a.status, `${host} ${a.url}`).toBe(403);
      }
      await page.close();
    }
  });
});

// The web console in a real browser (Debian's chromium, headless, through puppeteer-core): every
// page of the demo story walked and screenshot into test-output/ui/, with what a person sees
// asserted — counts, names, the diff of a known change, the command for the deleted module —
// hostile strings shown as text with no script run, and the token enforced.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LONG_NAME, RENAMED, RTL_TEXT, buildConsoleDb, serveConsole, type ConsoleDb, type ServedConsole } from '../helpers/ui-kit.js';

const OUT = resolve(import.meta.dirname, '../../test-output/ui');
const TOKEN = 'browser-test-token-0123456789';

describe('web console in chromium', () => {
  let db: ConsoleDb;
  let open: ServedConsole;
  let locked: ServedConsole;
  let browser: Browser;
  let profile: string;
  let page: Page;
  const requests: string[] = [];
  const dialogs: string[] = [];
  const consoleLines: string[] = [];

  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    db = await buildConsoleDb('observed');
    open = await serveConsole(db.h.dbPath);
    locked = await serveConsole(db.h.dbPath, TOKEN);
    profile = mkdtempSync(join(tmpdir(), 'wbsync-chromium-'));
    browser = await puppeteer.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`],
    });
    page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    page.on('request', (r) => requests.push(r.url()));
    page.on('console', (m) => consoleLines.push(m.text()));
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await open?.close();
    await locked?.close();
    await db?.h.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  const bodyText = (): Promise<string> => page.evaluate('document.body.innerText') as Promise<string>;

  async function visit(path: string, shot: string, base = open.url): Promise<string> {
    const res = await page.goto(`${base}${path}`, { waitUntil: 'load' });
    expect(res?.status(), path).toBeLessThan(500);
    await page.screenshot({ path: join(OUT, `${shot}.png`), fullPage: true });
    return bodyText();
  }

  it('overview: health, passes, database size and the two charts', async () => {
    const text = await visit('/', '01-overview');
    expect(text).toContain('Overview');
    expect(text).toMatch(/Last pass\s+complete\s+#2/i);
    expect(text).toMatch(/Database size\s+[\d.]+ (KiB|MiB)/i);
    expect(await page.$$eval('svg[aria-label="changes per pass"] rect.bar', (r) => r.length)).toBe(2);
    expect(await page.$$eval('svg[aria-label="requests per pass"] path.line', (r) => r.length)).toBe(1);
    // the stylesheet applied (served from the package, not a CDN)
    expect(await page.evaluate(`getComputedStyle(document.querySelector('header.top')).backgroundColor`)).toBe('rgb(29, 36, 51)');
  });

  it('snapshots, and what changed between them', async () => {
    const text = await visit('/snapshots', '02-snapshots');
    expect(text).toMatch(/2 snapshots/);
    await Promise.all([page.waitForNavigation(), page.click('form[action$="/changes"] button')]);
    await page.screenshot({ path: join(OUT, '03-changes.png'), fullPage: true });
    const diff = await bodyText();
    expect(diff).toContain('What changed from #1 to #2');
    expect(diff).toMatch(/removed\s+module\s+Sales Pipeline/);
    expect(diff).toContain(`${db.renamedFrom} → ${RENAMED}`);
    expect((diff.match(/→ Rejected/g) ?? []).length).toBe(db.overwritten);
  });

  it('browse: workspaces and modules, a module page by page, a record with its notes', async () => {
    const text = await visit('/browse', '04-browse');
    expect(text).toContain('Acme');
    expect(text).toContain('Hiring');
    expect(text).toMatch(/Hiring\s+3\s+12\s/); // collections and records
    expect(text).not.toContain('Sales Pipeline'); // deleted before #2
    expect(await visit('/browse?snapshot=1', '04-browse-as-of-1')).toContain('Sales Pipeline');
    await page.goto(`${open.url}/browse`);
    await Promise.all([page.waitForNavigation(), page.click(`a[href*="/module/${db.hiringModuleId}"]`)]);
    await page.screenshot({ path: join(OUT, '05-module.png'), fullPage: true });
    const mod = await bodyText();
    expect(mod).toMatch(/\d+ top-level records · page 1 of 1/);
    expect((mod.match(/Rejected/g) ?? []).length).toBeGreaterThanOrEqual(db.overwritten);
    expect(mod).toContain('Ada Lovelace'); // a person cell shows the member's name, not the id
    const old = await visit(`/module/${db.hiringModuleId}?snapshot=1`, '06-module-as-of-1');
    expect(old).toContain('as of snapshot #1');
    const rec = await visit(`/record/${db.renamedRecordId}?snapshot=1`, '07-record');
    expect(rec).toContain(db.renamedFrom);
    expect(rec).toContain('Amendments');
  });

  it('search finds a record by a word of its name', async () => {
    await visit('/', '08-search');
    await page.type('header input[type=search]', 'Rejected Renamed');
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    const text = await bodyText();
    await page.screenshot({ path: join(OUT, '08-search.png'), fullPage: true });
    expect(text).toMatch(/matches for/);
    const text2 = await visit('/search?q=Renamed', '08-search');
    expect(text2).toContain(RENAMED);
  });

  it('recover: the deleted module is listed first, with its plan and the command to copy', async () => {
    const text = await visit('/recover', '09-recover');
    expect(text).toContain('Pick a module');
    const first = await page.$eval('select[name=module] option', (o) => o.textContent ?? '');
    expect(first).toMatch(/Sales Pipeline — deleted \(last in #1\)/);
    await Promise.all([page.waitForNavigation(), page.click('form[action$="/recover"] button')]);
    await page.screenshot({ path: join(OUT, '10-recover-plan.png'), fullPage: true });
    expect(await page.$eval('pre.command', (p) => p.textContent)).toBe(`wbsync restore module ${db.deletedModuleId} --snapshot 1`);
    expect(await bodyText()).toMatch(/What would be created/);
    const rb = await visit(`/recover?module=${db.hiringModuleId}&snapshot=1&scope=rollback`, '11-recover-rollback');
    expect(rb).toContain(`wbsync rollback --module ${db.hiringModuleId} --to-snapshot 1`);
    expect(rb).toMatch(new RegExp(`Fields put back \\(${db.overwritten}\\)`));
  });

  it('hostile strings show as text and run no script', async () => {
    requests.length = 0;
    const text = await visit(`/record/${db.hostileRecordId}`, '12-hostile');
    expect(text).toContain(`<script>window.__pwned = 1; fetch('/pwned-by-script')</script>`);
    expect(text).toContain('"><img src=x onerror="window.__pwned = 2">');
    expect(text).toContain(RTL_TEXT.replace(/[\u202E\u202C]/g, '').slice(0, 10));
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.$$('main script, main img')).toHaveLength(0);
    const long = await visit(`/record/${db.longRecordId}`, '13-long-name');
    expect(long).toContain(LONG_NAME.slice(-40));
    await visit(`/module/${db.roadmapModuleId}`, '14-module-hostile');
    await visit('/search?q=pwned', '15-search-hostile');
    await visit('/changes?from=1&to=2', '03-changes');
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(requests.filter((u) => /pwned-by-script|\/x$/.test(u))).toEqual([]);
    expect(requests.every((u) => u.startsWith(open.url.replace(/\/ui$/, '')))).toBe(true);
    expect(dialogs).toEqual([]);
    // nothing the page holds was blocked by the CSP (no inline style or script to block)
    expect(consoleLines.filter((l) => /Content Security Policy/i.test(l))).toEqual([]);
  });

  it('404 page for an unknown id', async () => {
    const res = await page.goto(`${open.url}/module/000000000000000000000000`);
    expect(res?.status()).toBe(404);
    await page.screenshot({ path: join(OUT, '16-not-found.png') });
    expect(await bodyText()).toContain('Not found');
  });

  it('with a token: refused without it, the sign-in form lets a person in', async () => {
    const res = await page.goto(`${locked.url}/snapshots`);
    expect(res?.status()).toBe(401);
    await page.screenshot({ path: join(OUT, '17-sign-in.png') });
    expect(await bodyText()).toContain('Sign in');
    await page.type('input[name=token]', 'wrong-token');
    await Promise.all([page.waitForNavigation(), page.click('form button')]);
    expect(await bodyText()).toContain('not the one configured');
    await page.type('input[name=token]', TOKEN);
    await Promise.all([page.waitForNavigation(), page.click('form button')]);
    expect(await bodyText()).toContain('Overview');
    const cookies = await browser.cookies();
    expect(cookies.find((c) => c.name === 'wbsync_ui')?.httpOnly).toBe(true);
    expect(cookies.some((c) => c.value.includes(TOKEN))).toBe(false);
    // the header's sign-out button ends the session on the server
    await Promise.all([page.waitForNavigation(), page.click('form.signout button')]);
    expect(await bodyText()).toContain('Signed out.');
    expect((await page.goto(`${locked.url}/snapshots`))?.status()).toBe(401);
  });
});

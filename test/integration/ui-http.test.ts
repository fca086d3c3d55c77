// The web console over HTTP (no browser), in both dialects: every page answers with what a person
// should read, ids and parameters are validated (404/400 pages, no stack traces), every reply
// carries the strict headers, the console never writes, and the token and loopback rules hold.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import type { Dialect } from '../../src/emulator/types.js';
import { diffModuleTrees, treeFromState } from '../../src/restore/index.js';
import { ConsoleReads } from '../../src/store/read/index.js';
import { changeTrees } from '../../src/ui/change-trees.js';
import { checkListen, isLoopback } from '../../src/ui/security.js';
import { HOSTILE_RECORD, IMG_PAYLOAD, RENAMED, buildConsoleDb, serveConsole, writeTokenFile, type ConsoleDb, type ServedConsole } from '../helpers/ui-kit.js';

async function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await fetch(url, { headers, redirect: 'manual' });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

describe.each(['spec', 'observed'] as Dialect[])('web console over HTTP (%s dialect)', (dialect) => {
  let db: ConsoleDb;
  let c: ServedConsole;

  beforeAll(async () => {
    db = await buildConsoleDb(dialect);
    c = await serveConsole(db.h.dbPath);
  }, 120_000);
  afterAll(async () => {
    await c?.close();
    await db?.h.close();
  });

  it('serves every page with the strict headers', async () => {
    const pages = [
      '/',
      '/snapshots',
      '/changes?from=1&to=2',
      '/browse',
      '/browse?snapshot=1',
      `/module/${db.hiringModuleId}`,
      `/module/${db.hiringModuleId}?snapshot=1&page=1`,
      `/record/${db.renamedRecordId}?snapshot=1`,
      `/record/${db.hostileRecordId}`,
      '/search?q=Rejected',
      '/recover',
      `/recover?module=${db.deletedModuleId}`,
      `/recover?module=${db.hiringModuleId}&snapshot=1&scope=rollback`,
    ];
    for (const p of pages) {
      const r = await get(`${c.url}${p}`);
      expect(r.status, p).toBe(200);
      expect(r.headers.get('content-type'), p).toBe('text/html; charset=utf-8');
      expect(r.headers.get('content-security-policy'), p).toMatch(/default-src 'none'.*frame-ancestors 'none'/);
      expect(r.headers.get('content-security-policy'), p).not.toMatch(/script-src|unsafe-inline/);
      expect(r.headers.get('x-content-type-options'), p).toBe('nosniff');
      expect(r.headers.get('referrer-policy'), p).toBe('no-referrer');
      expect(r.text, p).not.toMatch(/<script/i);
      expect(r.text, p).not.toMatch(/ style=/); // the CSP would block inline styles
    }
    const css = await get(`${c.url}/static/console.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('shows what changed between the two snapshots, field by field', async () => {
    const r = await get(`${c.url}/changes?from=1&to=2`);
    expect(r.text).toContain('Sales Pipeline');
    expect(r.text).toMatch(/removed<\/span><\/td><td>module/);
    expect(r.text).toContain(`<span class="before">${db.renamedFrom.replace(/&/g, '&amp;')}</span> → <span class="after">${RENAMED}</span>`);
    expect(r.text).toMatch(/<span class="before">[^<]+<\/span> → <span class="after">Rejected<\/span>/);
    const one = await get(`${c.url}/changes?from=1&to=2&module=${db.hiringModuleId}`);
    expect((one.text.match(/→ <span class="after">Rejected<\/span>/g) ?? []).length).toBe(db.overwritten);
    expect(one.text).not.toContain('Sales Pipeline');
    expect((await get(`${c.url}/changes?from=1&to=2&module=%22%3E`)).status).toBe(400);
    // reversed order means the same comparison
    expect((await get(`${c.url}/changes?from=2&to=1`)).text).toContain('What changed from #1 to #2');
  });

  it('compares only what changed, with the same entries as over the whole modules', () => {
    const reads = new ConsoleReads(db.h.store.db, db.h.dbPath);
    const [sa, sb] = [db.h.store.stateAt(1)!, db.h.store.stateAt(2)!];
    const changed = reads.changedModules(1, 2);
    expect(changed.length).toBeGreaterThanOrEqual(3);
    const sorted = (xs: unknown[]) => xs.map((x) => JSON.stringify(x)).sort();
    for (const c of changed) {
      const cut = changeTrees(sa, sb, reads, c);
      const [fa, fb] = [treeFromState(sa, c.moduleId), treeFromState(sb, c.moduleId)];
      expect(cut.a === null, c.moduleId).toBe(fa === null);
      expect(cut.b === null, c.moduleId).toBe(fb === null);
      if (!fa || !fb) continue;
      expect(fa.records.length).toBeGreaterThan(cut.a!.records.length);
      expect(sorted(diffModuleTrees(cut.a!, cut.b!, { matchBy: 'id' }).entries), c.moduleId).toEqual(sorted(diffModuleTrees(fa, fb, { matchBy: 'id' }).entries));
    }
  });

  it('lists snapshots with counts, and the overview draws its charts', async () => {
    const s = await get(`${c.url}/snapshots`);
    expect(s.text).toMatch(/#2<\/a><\/td>\s*<td>full<\/td><td><span class="pill ok">complete/);
    const o = await get(`${c.url}/`);
    expect(o.text).toContain('Changes per pass');
    expect((o.text.match(/<rect class="bar/g) ?? []).length).toBe(2);
    expect(o.text).toMatch(/<path class="line" d="M/);
  });

  it('browses a module as of each snapshot, paged', async () => {
    const now = await get(`${c.url}/module/${db.hiringModuleId}`);
    const then = await get(`${c.url}/module/${db.hiringModuleId}?snapshot=1`);
    const rejected = (t: string) => (t.match(/>Rejected</g) ?? []).length;
    expect(rejected(now.text) - rejected(then.text)).toBe(db.overwritten);
    expect(now.text).toMatch(/top-level records · page 1 of 1/);
    const past = await get(`${c.url}/module/${db.hiringModuleId}?page=2`);
    expect(past.status).toBe(404);
    // the deleted module: not in the latest snapshot, but in #1
    const gone = await get(`${c.url}/module/${db.deletedModuleId}`);
    expect(gone.status).toBe(404);
    expect(gone.text).toContain(`/module/${db.deletedModuleId}?snapshot=1`);
    expect((await get(`${c.url}/module/${db.deletedModuleId}?snapshot=1`)).status).toBe(200);
  });

  it('escapes hostile strings everywhere they show', async () => {
    const r = await get(`${c.url}/record/${db.hostileRecordId}`);
    expect(r.text).toContain('&lt;script&gt;window.__pwned = 1; fetch(&#39;/pwned-by-script&#39;)&lt;/script&gt;');
    expect(r.text).not.toContain('<script>');
    expect(r.text).not.toContain('<img');
    expect(r.text).toContain('&quot;&gt;&lt;img src=x onerror=&quot;window.__pwned = 2&quot;&gt;');
    // the hostile column's name and its cell, on the record and the module page
    expect(r.text).toContain('Notes &lt;script&gt;window.__pwned');
    const m = await get(`${c.url}/module/${db.roadmapModuleId}`);
    expect(m.text).toContain('<th>Notes &lt;script&gt;window.__pwned');
    expect(m.text).toContain('&quot;&gt;&lt;img src=x onerror=&quot;window.__pwned = 2&quot;&gt; &#39;quoted&#39; &amp; &lt;b&gt;bold&lt;/b&gt;');
    for (const p of ['/search?q=pwned', `/module/${db.roadmapModuleId}`, '/changes?from=1&to=2']) {
      const t = (await get(`${c.url}${p}`)).text;
      expect(t).not.toMatch(/<script|<img/i);
    }
    expect((await get(`${c.url}/search?q=pwned`)).text).toContain('&lt;script&gt;');
    expect(HOSTILE_RECORD).toContain(IMG_PAYLOAD);
  });

  it('shows the command for the deleted module, and a rollback plan for the overwrite', async () => {
    const r = await get(`${c.url}/recover?module=${db.deletedModuleId}`);
    expect(r.text).toContain(`<pre class="command">wbsync restore module ${db.deletedModuleId} --snapshot 1</pre>`);
    expect(r.text).toMatch(/Sales Pipeline — deleted \(last in #1\)/);
    const live = await get(`${c.url}/recover?module=${db.hiringModuleId}&snapshot=1`);
    expect(live.text).toContain(`wbsync restore module ${db.hiringModuleId} --snapshot 1 --as-copy`);
    const rb = await get(`${c.url}/recover?module=${db.hiringModuleId}&snapshot=1&scope=rollback`);
    expect(rb.text).toContain(`<pre class="command">wbsync rollback --module ${db.hiringModuleId} --to-snapshot 1</pre>`);
    expect(rb.text).toContain(`${db.overwritten} cells`);
  });

  it('answers unknown ids and bad parameters with plain 404/400 pages', async () => {
    const cases: Array<[string, number]> = [
      ['/module/000000000000000000000000', 404],
      ['/record/nope', 404],
      ['/module/..%2F..%2Fetc', 404],
      ['/module/%E0%A4%A', 404],
      ['/nowhere', 404],
      ['/browse?snapshot=999', 404],
      ['/browse?snapshot=-1', 400],
      ['/browse?snapshot=1e3', 400],
      [`/module/${db.hiringModuleId}?page=0`, 400],
      [`/module/${db.hiringModuleId}?page=x`, 400],
      [`/module/${db.hiringModuleId}?collection=%3Cscript%3E`, 400],
      ['/changes?from=1', 400],
      ['/recover?module=ffffffffffffffffffffffff', 404],
      ['/recover?scope=everything', 400],
      [`/search?q=${'x'.repeat(300)}`, 400],
    ];
    for (const [p, status] of cases) {
      const r = await get(`${c.url}${p}`);
      expect(r.status, p).toBe(status);
      expect(r.headers.get('content-security-policy'), p).toBeTruthy();
      expect(r.text, p).not.toMatch(/at \w+ \(|node:internal|\.ts:\d+|Error:/);
    }
    const post = await fetch(`${c.url}/`, { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    const root = await fetch(c.url.replace(/\/ui$/, '/'), { redirect: 'manual' });
    expect(root.status).toBe(303);
  });

  it('writes nothing to the database', async () => {
    const before = db.h.store.db.prepare('SELECT count(*) FROM snapshot_runs').pluck().get();
    for (const p of ['/', '/snapshots', `/recover?module=${db.deletedModuleId}`]) await get(`${c.url}${p}`);
    expect(db.h.store.db.prepare('SELECT count(*) FROM snapshot_runs').pluck().get()).toBe(before);
    expect(c.ui.base).toBe('/ui');
  });
});

describe('the console and the secrets around it', () => {
  let db: ConsoleDb;
  let c: ServedConsole;
  const canaries = ['CANARY-WEBHOOK-7f3a', 'CANARY-PING-9b1c', 'CANARY-APIKEY-51d0', 'CANARY-TOKEN-c0ffee42'];
  const saved = process.env.WBSYNC_API_KEY;

  beforeAll(async () => {
    db = await buildConsoleDb('observed');
    process.env.WBSYNC_API_KEY = `crm_${canaries[2]}`;
    c = await serveConsole(db.h.dbPath, canaries[3], {
      baseUrl: 'https://boards.example.test',
      alerts: { webhooks: [{ url: `https://hooks.example.test/services/${canaries[0]}`, format: 'slack' }], healthchecksUrl: `https://hc.example.test/ping/${canaries[1]}` },
    });
  }, 120_000);
  afterAll(async () => {
    if (saved === undefined) delete process.env.WBSYNC_API_KEY;
    else process.env.WBSYNC_API_KEY = saved;
    await c?.close();
    await db?.h.close();
  });

  it('shows no key, token, webhook or ping URL on any page, the sign-in page included', async () => {
    const auth = { authorization: `Bearer ${canaries[3]}` };
    const pages = ['/', '/snapshots', '/changes?from=1&to=2', '/browse', `/module/${db.hiringModuleId}`, `/record/${db.hostileRecordId}`, '/search?q=Rejected', '/recover', `/recover?module=${db.deletedModuleId}`, `/recover?module=${db.hiringModuleId}&snapshot=1&scope=rollback`, '/module/ffffffffffffffffffffffff', '/static/console.css'];
    for (const p of pages) {
      const r = await get(`${c.url}${p}`, auth);
      expect([200, 404], p).toContain(r.status);
      for (const canary of canaries) expect(r.text, `${p}: ${canary}`).not.toContain(canary);
    }
    const refused = await get(`${c.url}/`);
    expect(refused.status).toBe(401);
    for (const canary of canaries) expect(refused.text).not.toContain(canary);
  });
});

describe('the console token and the loopback rule', () => {
  let db: ConsoleDb;
  let c: ServedConsole;
  const token = 'correct-horse-battery-staple-4242';

  beforeAll(async () => {
    db = await buildConsoleDb('observed');
    c = await serveConsole(db.h.dbPath, token);
  }, 120_000);
  afterAll(async () => {
    await c?.close();
    await db?.h.close();
  });

  it('refuses a request without the token, and takes it as a bearer or through the sign-in form', async () => {
    expect((await get(`${c.url}/`)).status).toBe(401);
    expect((await get(`${c.url}/snapshots`, { accept: 'text/html' })).text).toContain('Sign in');
    expect((await get(`${c.url}/`, { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await get(`${c.url}/`, { authorization: `Bearer ${token}x` })).status).toBe(401);
    const ok = await get(`${c.url}/snapshots`, { authorization: `Bearer ${token}` });
    expect(ok.status).toBe(200);
    expect(ok.text).not.toContain(token);
    // the stylesheet is public (the sign-in page needs it)
    expect((await get(`${c.url}/static/console.css`)).status).toBe(200);

    const wrong = await fetch(`${c.url}/login`, { method: 'POST', body: new URLSearchParams({ token: 'nope' }), redirect: 'manual' });
    expect(wrong.status).toBe(401);
    const login = await fetch(`${c.url}/login`, { method: 'POST', body: new URLSearchParams({ token }), redirect: 'manual' });
    expect(login.status).toBe(303);
    const cookie = login.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).not.toContain(token);
    expect((await get(`${c.url}/browse`, { cookie: cookie.split(';')[0]! })).status).toBe(200);
    expect((await get(`${c.url}/browse`, { cookie: 'wbsync_ui=forged' })).status).toBe(401);
  });

  it('refuses to listen beyond loopback without ui.tokenFile (exit 2), and accepts it with one', async () => {
    expect(isLoopback('127.0.0.1')).toBe(true);
    expect(isLoopback('::1')).toBe(true);
    expect(isLoopback('localhost')).toBe(true);
    expect(isLoopback('0.0.0.0')).toBe(false);
    expect(isLoopback('192.168.1.10')).toBe(false);
    expect(() => checkListen('0.0.0.0', { tokenFile: undefined }, '--listen')).toThrow(/beyond loopback/);
    expect(() => checkListen('0.0.0.0', { tokenFile: '/some/file' }, '--listen')).toThrow(/over plain HTTP/);
    expect(() => checkListen('0.0.0.0', { tokenFile: '/some/file', behindTlsProxy: true }, '--listen')).not.toThrow();

    let err = '';
    let out = '';
    const io = { stdout: { write: (s: string) => void (out += s) }, stderr: { write: (s: string) => void (err += s) }, env: { PATH: process.env.PATH, WBSYNC_LOG_LEVEL: 'silent' } };
    const code = await runCli(['ui', '--listen', '0.0.0.0:0', '--db', db.h.dbPath], io);
    expect(code).toBe(2);
    expect(err).toMatch(/would listen on 0\.0\.0\.0, beyond loopback, without ui\.tokenFile/);
    expect(err).toMatch(/ui\.tokenFile/);
    err = '';
    expect(await runCli(['ui', '--listen', 'no-port-here', '--db', db.h.dbPath], io)).toBe(2);
    expect(err).toMatch(/--listen wants HOST:PORT/);

    // with a token file but plain HTTP and no TLS proxy declared: refused too (exit 2)
    const file = writeTokenFile(db.h.dir, token);
    const plain = `${db.h.dir}/ui-plain.json`;
    (await import('node:fs')).writeFileSync(plain, JSON.stringify({ db: db.h.dbPath, ui: { tokenFile: file } }));
    err = '';
    expect(await runCli(['ui', '--listen', '0.0.0.0:0', '--config', plain], io)).toBe(2);
    expect(err).toMatch(/over plain HTTP/);
    expect(err).toMatch(/ui\.tls\.certFile/);

    // with a token file behind a declared TLS-terminating proxy it starts (and stops on the signal)
    const ac = new AbortController();
    out = '';
    const cfg = `${db.h.dir}/ui-config.json`;
    (await import('node:fs')).writeFileSync(cfg, JSON.stringify({ db: db.h.dbPath, ui: { tokenFile: file, behindTlsProxy: true } }));
    const running = runCli(['ui', '--listen', '0.0.0.0:0', '--config', cfg, '--json'], { ...io, signal: ac.signal });
    for (let i = 0; i < 100 && !out.includes('"url"'); i++) await new Promise((r) => setTimeout(r, 50));
    const doc = JSON.parse(out) as { url: string; tokenRequired: boolean };
    expect(doc.tokenRequired).toBe(true);
    const port = new URL(doc.url).port;
    expect((await get(`http://127.0.0.1:${port}/ui/`)).status).toBe(401);
    expect((await get(`http://127.0.0.1:${port}/ui/`, { authorization: `Bearer ${token}` })).status).toBe(200);
    ac.abort();
    expect(await running).toBe(0);
  });
});

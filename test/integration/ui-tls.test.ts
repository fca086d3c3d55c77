// The token-protected console beyond loopback, as `wbsync ui` serves it: HTTPS from a certificate
// the test makes with openssl, the session cookie's flags, sign-out, the sign-in rate limit, a
// guessable token refused, and warnings for token and key files others may read.

import { execFileSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { startEmulator } from '../../src/emulator/index.js';
import { tempDir } from '../helpers/harness.js';
import { buildConsoleDb, serveConsole, writeTokenFile, type ConsoleDb } from '../helpers/ui-kit.js';
import { eventually, killAll, startDaemon, writeConfig } from './daemon-harness.js';

const TOKEN = '7d1e0c9a4b5f2e8d3c6a1f0b9e8d7c6a';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function https(port: number, ca: Buffer, path: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: opts.method ?? 'GET', ca, servername: undefined, headers: { ...(opts.body ? { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(opts.body)) } : {}), ...opts.headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

describe('wbsync ui over TLS with a token', () => {
  let db: ConsoleDb;
  let dir: string;
  let cert: Buffer;
  let port: number;
  let err = '';
  const ac = new AbortController();
  let running: Promise<number>;
  const tokenFile = (): string => join(dir, 'ui.token');

  beforeAll(async () => {
    db = await buildConsoleDb('spec');
    dir = db.h.dir;
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', join(dir, 'ui.key'), '-out', join(dir, 'ui.crt'), '-subj', '/CN=wbsync test', '-days', '1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], { stdio: 'ignore' });
    cert = (await import('node:fs')).readFileSync(join(dir, 'ui.crt'));
    writeTokenFile(dir, TOKEN);
    // secret files others may read: served, but warned about
    chmodSync(tokenFile(), 0o644);
    chmodSync(join(dir, 'ui.key'), 0o640);
    const cfg = join(dir, 'tls.json');
    writeFileSync(cfg, JSON.stringify({ db: db.h.dbPath, ui: { tokenFile: tokenFile(), tls: { certFile: join(dir, 'ui.crt'), keyFile: join(dir, 'ui.key') } } }));
    let out = '';
    const io = { stdout: { write: (s: string) => void (out += s) }, stderr: { write: (s: string) => void (err += s) }, env: { PATH: process.env.PATH, WBSYNC_LOG_LEVEL: 'warn' }, signal: ac.signal };
    running = runCli(['ui', '--listen', '0.0.0.0:0', '--config', cfg, '--json'], io);
    for (let i = 0; i < 200 && !out.includes('"url"'); i++) await new Promise((r) => setTimeout(r, 50));
    const doc = JSON.parse(out) as { url: string; tokenRequired: boolean };
    expect(doc.url).toMatch(/^https:\/\//);
    expect(doc.tokenRequired).toBe(true);
    port = Number(new URL(doc.url).port);
  }, 120_000);

  afterAll(async () => {
    ac.abort();
    expect(await running).toBe(0);
    await db?.h.close();
  });

  it('warned about the token file and the key file others may read', () => {
    const warnings = err.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { msg: string; level: number });
    expect(warnings.map((w) => w.msg)).toEqual(expect.arrayContaining([
      `ui.tokenFile ${tokenFile()} is readable by everyone on this machine (mode 0644): make it readable by its owner only (chmod 600; a mounted secret: mode 0400)`,
      `ui.tls.keyFile ${join(dir, 'ui.key')} is readable by its group (mode 0640): make it readable by its owner only (chmod 600; a mounted secret: mode 0400)`,
    ]));
    expect(err).not.toContain(TOKEN);
  });

  it('speaks HTTPS with the configured certificate, and no plain HTTP', async () => {
    const r = await https(port, cert, '/ui/', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(r.status).toBe(200);
    expect(r.text).toContain('Overview');
    expect((await https(port, cert, '/ui/')).status).toBe(401);
    const plain = await new Promise<string>((resolve) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/ui/', headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
        let t = '';
        res.on('data', (d: Buffer) => (t += d.toString()));
        res.on('end', () => resolve(`${res.statusCode}: ${t}`));
      });
      req.on('error', (e) => resolve(`error: ${e.message}`));
      req.end();
    });
    expect(plain).not.toContain('Overview');
  });

  it('signs in with a Secure, HttpOnly, SameSite=Strict cookie that expires; signs out for good', async () => {
    const login = await https(port, cert, '/ui/login', { method: 'POST', body: new URLSearchParams({ token: TOKEN }).toString() });
    expect(login.status).toBe(303);
    const set = String(login.headers['set-cookie']);
    expect(set).toMatch(/^wbsync_ui=[0-9a-f]{64}; Path=\/ui\/; Max-Age=43200; HttpOnly; SameSite=Strict; Secure$/);
    expect(set).not.toContain(TOKEN);
    const cookie = set.split(';')[0]!;
    const page = await https(port, cert, '/ui/browse', { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<form class="signout" method="post" action="\/ui\/logout">/);
    // sign-out is a POST (a link or an image cannot sign anyone out)
    expect((await https(port, cert, '/ui/logout', { headers: { cookie } })).status).toBe(405);
    const out = await https(port, cert, '/ui/logout', { method: 'POST', headers: { cookie }, body: '' });
    expect(out.status).toBe(200);
    expect(String(out.headers['set-cookie'])).toMatch(/^wbsync_ui=; Path=\/ui\/; Max-Age=0; HttpOnly; SameSite=Strict; Secure$/);
    expect(out.text).toContain('Signed out.');
    // the server forgot the session: the old cookie no longer opens anything
    expect((await https(port, cert, '/ui/browse', { headers: { cookie } })).status).toBe(401);
  });

  it('after five wrong tokens from one address, sign-in waits (429 with Retry-After), the right token too', async () => {
    for (let i = 0; i < 5; i++) expect((await https(port, cert, '/ui/login', { method: 'POST', body: 'token=wrong-guess' })).status).toBe(401);
    const limited = await https(port, cert, '/ui/login', { method: 'POST', body: 'token=wrong-guess' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.text).toContain('Too many wrong tokens');
    expect((await https(port, cert, '/ui/login', { method: 'POST', body: new URLSearchParams({ token: TOKEN }).toString() })).status).toBe(429);
    // the bearer header is no way around it: this address waits there too
    const bearer = await https(port, cert, '/ui/', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(bearer.status).toBe(429);
    expect(Number(bearer.headers['retry-after'])).toBeGreaterThan(0);
    expect(err).toMatch(/console sign-in refused: too many wrong tokens/);
  });
});

describe('tokens and certificates wbsync ui refuses', () => {
  let db: ConsoleDb;
  beforeAll(async () => {
    db = await buildConsoleDb('observed');
  }, 120_000);
  afterAll(async () => {
    await db?.h.close();
  });

  const refuse = async (ui: Record<string, unknown>, listen = '127.0.0.1:0'): Promise<string> => {
    const cfg = join(db.h.dir, `refuse-${Math.random().toString(16).slice(2)}.json`);
    writeFileSync(cfg, JSON.stringify({ db: db.h.dbPath, ui }));
    let err = '';
    const io = { stdout: { write: () => undefined }, stderr: { write: (s: string) => void (err += s) }, env: { PATH: process.env.PATH, WBSYNC_LOG_LEVEL: 'silent' } };
    expect(await runCli(['ui', '--listen', listen, '--config', cfg], io)).toBe(2);
    return err;
  };

  it('guessing bearer tokens is limited like the sign-in form', async () => {
    const c = await serveConsole(db.h.dbPath, TOKEN);
    try {
      for (let i = 0; i < 5; i++) expect((await fetch(`${c.url}/`, { headers: { authorization: `Bearer guess-${i}` } })).status).toBe(401);
      const limited = await fetch(`${c.url}/`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await c.close();
    }
  });

  it('a guessable token (aaaaaaaaaaaaaaaa), exit 2', async () => {
    const file = join(db.h.dir, 'weak.token');
    writeFileSync(file, 'aaaaaaaaaaaaaaaa\n', { mode: 0o600 });
    const err = await refuse({ tokenFile: file });
    expect(err).toMatch(/ui\.tokenFile: .*weak\.token holds a guessable token/);
    expect(err).toMatch(/openssl rand -hex 32/);
  });

  it('a certificate without its key, and a file that is no certificate, exit 2', async () => {
    const token = writeTokenFile(join(db.h.dir, 'ok'), TOKEN);
    expect(await refuse({ tokenFile: token, tls: { certFile: join(db.h.dir, 'nowhere.crt') } })).toMatch(/ui\.tls\.keyFile: /);
    const junk = join(db.h.dir, 'junk.pem');
    writeFileSync(junk, 'not a certificate\n', { mode: 0o600 });
    expect(await refuse({ tokenFile: token, tls: { certFile: junk, keyFile: junk } }, '0.0.0.0:0')).toMatch(/not a usable certificate and key/);
  });
});

describe('the daemon beyond loopback', () => {
  it('with TLS: /healthz, /metrics and the console over HTTPS; without TLS or a proxy: no console, a warning', async () => {
    const { dir, cleanup } = tempDir('wbsync-daemon-tls-');
    const emu = await startEmulator({ dialect: 'observed', seed: 'demo' });
    try {
      execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', join(dir, 'd.key'), '-out', join(dir, 'd.crt'), '-subj', '/CN=wbsync daemon', '-days', '1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
      chmodSync(join(dir, 'd.key'), 0o600);
      const ca = (await import('node:fs')).readFileSync(join(dir, 'd.crt'));
      const token = writeTokenFile(dir, TOKEN);
      const tls = startDaemon(writeConfig(dir, 'tls', { db: join(dir, 'tls.db'), extra: { daemon: { listen: '0.0.0.0:0' }, ui: { tokenFile: token, tls: { certFile: join(dir, 'd.crt'), keyFile: join(dir, 'd.key') } } } }), emu.baseUrl, emu.apiKey);
      const port = await tls.port();
      await eventually(async () => (await https(port, ca, '/healthz')).status === 200, 20_000, 'healthy over https');
      expect((await https(port, ca, '/metrics')).text).toContain('wbsync_');
      expect((await https(port, ca, '/ui/')).status).toBe(401);
      expect((await https(port, ca, '/ui/', { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
      await killAll();

      const plain = startDaemon(writeConfig(dir, 'plain', { db: join(dir, 'plain.db'), extra: { daemon: { listen: '0.0.0.0:0' }, ui: { tokenFile: token } } }), emu.baseUrl, emu.apiKey);
      await plain.waitForLog((l) => String(l.msg).startsWith('web console not served: daemon.listen is beyond loopback and neither TLS'), 15_000, 'console warning');
    } finally {
      await killAll();
      await emu.stop();
      cleanup();
    }
  }, 90_000);
});

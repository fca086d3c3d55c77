import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hostPolicy, judgeRequest } from './request-guard.js';
import { bearerOf, checkListen, cookieOf, isLoopback, readToken, sameSecret, secretFileWarning, tokenBits } from './security.js';
import { LoginLimiter, SessionStore, sessionCookie } from './sessions.js';

const dir = mkdtempSync(join(tmpdir(), 'wbsync-security-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const req = (headers: Record<string, string>, method = 'GET', localPort = 9465): IncomingMessage => ({ headers, method, socket: { localPort } }) as unknown as IncomingMessage;

describe('console security', () => {
  it('knows loopback addresses', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', '::ffff:127.0.0.1']) expect(isLoopback(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '10.0.0.1', 'example.com', '128.0.0.1']) expect(isLoopback(h), h).toBe(false);
  });

  it('refuses a listener beyond loopback without a token file, and without TLS or a declared TLS proxy (config errors: exit 2)', () => {
    expect(() => checkListen('0.0.0.0', { tokenFile: undefined }, 'daemon.listen')).toThrow(expect.objectContaining({ code: 'config' }));
    expect(() => checkListen('0.0.0.0', { tokenFile: '/t' }, 'daemon.listen')).toThrow(/over plain HTTP/);
    expect(() => checkListen('0.0.0.0', { tokenFile: '/t', tls: { certFile: '/c', keyFile: '/k' } }, 'daemon.listen')).not.toThrow();
    expect(() => checkListen('0.0.0.0', { tokenFile: '/t', behindTlsProxy: true }, 'daemon.listen')).not.toThrow();
    expect(() => checkListen('127.0.0.1', { tokenFile: undefined }, 'daemon.listen')).not.toThrow();
  });

  it('compares secrets of any length', () => {
    expect(sameSecret('abc', 'abc')).toBe(true);
    expect(sameSecret('abc', 'abcd')).toBe(false);
    expect(sameSecret('', 'abc')).toBe(false);
  });

  it('reads bearer tokens and cookies', () => {
    expect(bearerOf('Bearer abc')).toBe('abc');
    expect(bearerOf('bearer   abc ')).toBe('abc');
    expect(bearerOf('Basic abc')).toBeUndefined();
    expect(cookieOf('other=1; wbsync_ui=xyz', 'wbsync_ui')).toBe('xyz');
    expect(cookieOf(undefined, 'wbsync_ui')).toBeUndefined();
  });

  it('refuses short and low-entropy tokens, takes random ones', () => {
    const file = (name: string, text: string): string => {
      const p = join(dir, name);
      writeFileSync(p, text, { mode: 0o600 });
      return p;
    };
    expect(() => readToken(file('a16', 'aaaaaaaaaaaaaaaa\n'))).toThrow(/guessable token/);
    expect(() => readToken(file('ab', 'abababababababababababab'))).toThrow(/guessable token/);
    expect(() => readToken(file('short', 'abc123'))).toThrow(/shorter than 16/);
    expect(() => readToken(file('empty', '\n'))).toThrow(/no token/);
    expect(readToken(file('hex', '9f86d081884c7d659a2feaa0c55ad015\n'))).toBe('9f86d081884c7d659a2feaa0c55ad015');
    expect(readToken(file('words', 'correct-horse-battery-staple-4242'))).toBe('correct-horse-battery-staple-4242');
    expect(tokenBits('aaaaaaaaaaaaaaaa')).toBe(0);
    expect(tokenBits('9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08')).toBeGreaterThan(200);
  });

  it('warns about secret files others may read, by who may read them', () => {
    const p = join(dir, 'secret');
    writeFileSync(p, 'x');
    chmodSync(p, 0o600);
    expect(secretFileWarning(p, 'ui.tokenFile')).toBeUndefined();
    chmodSync(p, 0o640);
    expect(secretFileWarning(p, 'ui.tokenFile')).toBe(`ui.tokenFile ${p} is readable by its group (mode 0640): make it readable by its owner only (chmod 600; a mounted secret: mode 0400)`);
    chmodSync(p, 0o644);
    expect(secretFileWarning(p, 'ui.tls.keyFile')).toMatch(/readable by everyone on this machine \(mode 0644\)/);
  });
});

describe('sessions and sign-in attempts', () => {
  it('a session lives for its TTL on the server, then is gone; sign-out forgets it', () => {
    let t = 1_000_000;
    const s = new SessionStore(60_000, () => t);
    const a = s.open();
    const b = s.open();
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(s.isLive(a)).toBe(true);
    expect(s.isLive('f'.repeat(64))).toBe(false);
    expect(s.isLive(undefined)).toBe(false);
    s.close(b);
    expect(s.isLive(b)).toBe(false);
    t += 59_999;
    expect(s.isLive(a)).toBe(true);
    t += 1;
    expect(s.isLive(a)).toBe(false);
    expect(s.size).toBe(0);
  });

  it('the cookie is HttpOnly, SameSite=Strict, with a Max-Age, and Secure over TLS', () => {
    expect(sessionCookie('ab', '/ui', 43_200_000, true)).toBe('wbsync_ui=ab; Path=/ui/; Max-Age=43200; HttpOnly; SameSite=Strict; Secure');
    expect(sessionCookie('ab', '/ui', 3_600_000, false)).not.toContain('Secure');
  });

  it('five wrong tokens a minute per address, thirty in all, then a wait', () => {
    let t = 0;
    const l = new LoginLimiter(5, 30, 60_000, () => t);
    for (let i = 0; i < 5; i++) {
      expect(l.retryAfter('a')).toBe(0);
      l.fail('a');
      t += 1000;
    }
    expect(l.retryAfter('a')).toBe(55);
    expect(l.retryAfter('b')).toBe(0);
    t = 60_001;
    expect(l.retryAfter('a')).toBe(0);
    for (let i = 0; i < 30; i++) l.fail(`x${i}`);
    expect(l.retryAfter('fresh')).toBeGreaterThan(0);
    // bearer requests only answer for their own address
    expect(l.retryAfter('fresh', true)).toBe(0);
  });
});

describe('the request guard (DNS rebinding, cross-site reads)', () => {
  const policy = hostPolicy('127.0.0.1', ['backup.example.com']);
  const judge = (headers: Record<string, string>, method = 'GET') => judgeRequest(req(headers, method), policy, { tls: false });

  it('answers loopback names and the listen address, with our port', () => {
    for (const host of ['127.0.0.1:9465', 'localhost:9465', '[::1]:9465', 'LOCALHOST:9465', 'backup.example.com', 'backup.example.com:443']) expect(judge({ host }), host).toEqual({ ok: true });
  });

  it('refuses a foreign Host, a rebinding name, an empty Host and another port', () => {
    for (const host of ['evil.example:9465', '127.0.0.1.nip.io:9465', 'localhost.:9465', '127.0.0.1:9466', 'localhost', '']) {
      const v = judge({ host });
      expect(v.ok, host).toBe(false);
    }
    expect(judgeRequest(req({}), policy, { tls: false })).toEqual({ ok: false, status: 400, reason: 'no Host header' });
    expect(judge({ host: 'evil.example:9465' })).toMatchObject({ status: 421 });
  });

  it('refuses another origin and cross-site fetches; a cross-site navigation (a followed link) may land', () => {
    expect(judge({ host: '127.0.0.1:9465', origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' })).toMatchObject({ ok: false, status: 403 });
    expect(judge({ host: '127.0.0.1:9465', origin: 'http://localhost:9465' })).toMatchObject({ ok: false, status: 403 });
    expect(judge({ host: '127.0.0.1:9465', origin: 'null' })).toMatchObject({ ok: false, status: 403 });
    expect(judge({ host: '127.0.0.1:9465', origin: 'null', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' }, 'POST')).toMatchObject({ ok: false, status: 403 });
    // our own sign-in form under Referrer-Policy: no-referrer
    expect(judge({ host: '127.0.0.1:9465', origin: 'null', 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'navigate' }, 'POST')).toEqual({ ok: true });
    expect(judge({ host: '127.0.0.1:9465', origin: 'http://127.0.0.1:9465' }, 'POST')).toEqual({ ok: true });
    expect(judge({ host: '127.0.0.1:9465', 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'cors' })).toMatchObject({ ok: false, status: 403 });
    expect(judge({ host: '127.0.0.1:9465', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' })).toMatchObject({ ok: false });
    expect(judge({ host: '127.0.0.1:9465', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'iframe' })).toMatchObject({ ok: false });
    expect(judge({ host: '127.0.0.1:9465', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' })).toEqual({ ok: true });
    expect(judge({ host: '127.0.0.1:9465', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' }, 'POST')).toMatchObject({ ok: false });
    expect(judge({ host: '127.0.0.1:9465', 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' })).toEqual({ ok: true });
  });

  it('scrapers beyond loopback: any Host, but still no cross-site browser reads', () => {
    const open = hostPolicy('0.0.0.0');
    expect(judgeRequest(req({ host: 'prometheus-target:9464' }), open, { tls: false, browserChecksOnly: true })).toEqual({ ok: true });
    expect(judgeRequest(req({ host: 'x:9464', origin: 'http://evil.example' }), open, { tls: false, browserChecksOnly: true })).toMatchObject({ ok: false });
  });
});

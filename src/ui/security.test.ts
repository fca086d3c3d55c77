import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { SESSION_COOKIE, checkListen, isAuthorised, isLoopback, sameSecret, sessionValue } from './security.js';

const req = (headers: Record<string, string>): IncomingMessage => ({ headers }) as unknown as IncomingMessage;

describe('console security', () => {
  it('knows loopback addresses', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', '::ffff:127.0.0.1']) expect(isLoopback(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '10.0.0.1', 'example.com', '128.0.0.1']) expect(isLoopback(h), h).toBe(false);
  });

  it('refuses a listener beyond loopback without a token file (a config error: exit 2)', () => {
    expect(() => checkListen('0.0.0.0', undefined, 'daemon.listen')).toThrow(expect.objectContaining({ code: 'config' }));
    expect(() => checkListen('127.0.0.1', undefined, 'daemon.listen')).not.toThrow();
  });

  it('compares secrets of any length', () => {
    expect(sameSecret('abc', 'abc')).toBe(true);
    expect(sameSecret('abc', 'abcd')).toBe(false);
    expect(sameSecret('', 'abc')).toBe(false);
  });

  it('authorises by bearer or session cookie only when a token is set', () => {
    const token = 'a-long-enough-token-123';
    expect(isAuthorised(req({}), null)).toBe(true);
    expect(isAuthorised(req({}), token)).toBe(false);
    expect(isAuthorised(req({ authorization: `Bearer ${token}` }), token)).toBe(true);
    expect(isAuthorised(req({ authorization: `bearer  ${token}` }), token)).toBe(true);
    expect(isAuthorised(req({ authorization: 'Bearer nope' }), token)).toBe(false);
    expect(isAuthorised(req({ cookie: `other=1; ${SESSION_COOKIE}=${sessionValue(token)}` }), token)).toBe(true);
    expect(isAuthorised(req({ cookie: `${SESSION_COOKIE}=${token}` }), token)).toBe(false);
    expect(sessionValue(token)).not.toContain(token);
  });
});

// Who may see the console: loopback only unless ui.tokenFile is set; with a token, a request must
// carry `Authorization: Bearer <token>` or the session cookie the login form sets. Comparisons are
// constant-time over SHA-256 digests (equal lengths whatever was sent). Headers every reply carries.

import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { WbsyncError } from '../domain/errors.js';

export const SESSION_COOKIE = 'wbsync_ui';

/** No script at all, styles from our own file, no framing, forms post only to us. */
export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || h.startsWith('::ffff:127.');
  return false;
}

/** Refuses (exit 2) a listener beyond loopback without a token. */
export function checkListen(host: string, tokenFile: string | undefined, where: string): void {
  if (tokenFile === undefined && !isLoopback(host)) {
    throw new WbsyncError('config', `${where}: the web console would listen on ${host}, beyond loopback, without ui.tokenFile`, {
      hint: 'listen on 127.0.0.1 (the default), or set ui.tokenFile to a file holding a long random token (e.g. `openssl rand -hex 32 > ui.token; chmod 600 ui.token`)',
    });
  }
}

/** The token in ui.tokenFile (trimmed); a missing or empty file is a configuration error. */
export function readToken(tokenFile: string): string {
  let text: string;
  try {
    text = readFileSync(tokenFile, 'utf8');
  } catch (e) {
    throw new WbsyncError('config', `ui.tokenFile: cannot read ${tokenFile} (${(e as NodeJS.ErrnoException).code ?? 'error'})`, { hint: 'create it with a long random token, mode 0600' });
  }
  const token = text.trim();
  if (token.length < 16) throw new WbsyncError('config', `ui.tokenFile: ${tokenFile} holds ${token.length ? 'a token shorter than 16 characters' : 'no token'}`, { hint: 'put a long random token in it, e.g. `openssl rand -hex 32`' });
  return token;
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** The cookie value a login sets: derived from the token, so the token itself never sits in a cookie. */
export function sessionValue(token: string): string {
  return createHmac('sha256', token).update('wbsync-ui-session-v1').digest('hex');
}

function cookieOf(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}

/** True when no token is configured, or the request carries it (bearer) or the session cookie. */
export function isAuthorised(req: IncomingMessage, token: string | null): boolean {
  if (token === null) return true;
  const auth = req.headers.authorization;
  if (typeof auth === 'string' && /^Bearer\s+/i.test(auth)) return sameSecret(auth.replace(/^Bearer\s+/i, '').trim(), token);
  const cookie = cookieOf(req, SESSION_COOKIE);
  return cookie !== undefined && sameSecret(cookie, sessionValue(token));
}

export function sessionCookie(token: string, basePath: string): string {
  return `${SESSION_COOKIE}=${sessionValue(token)}; Path=${basePath}/; HttpOnly; SameSite=Strict; Max-Age=43200`;
}

// Who may see the console: loopback only unless ui.tokenFile is set; beyond loopback also only over
// TLS (ui.tls.certFile/keyFile) or behind a TLS-terminating proxy (ui.behindTlsProxy). With a token,
// a request must carry `Authorization: Bearer <token>` or a live session cookie (src/ui/sessions.ts).
// Comparisons are constant-time over SHA-256 digests. Headers every reply carries. Which Host and
// Origin a request may name is src/ui/request-guard.ts.

import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { WbsyncError } from '../domain/errors.js';

export { secretFileWarning } from '../config/secret-file.js';

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

/** What the console's listener is given by the configuration. */
export interface ListenSecurity {
  tokenFile?: string | undefined;
  tls?: { certFile: string; keyFile: string } | undefined;
  behindTlsProxy?: boolean;
}

/**
 * Refuses (exit 2) a listener beyond loopback without a token, or without TLS when no
 * TLS-terminating proxy is declared: the token and the session cookie would travel in clear.
 */
export function checkListen(host: string, ui: ListenSecurity, where: string): void {
  if (isLoopback(host)) return;
  if (ui.tokenFile === undefined) {
    throw new WbsyncError('config', `${where}: the web console would listen on ${host}, beyond loopback, without ui.tokenFile`, {
      hint: 'listen on 127.0.0.1 (the default), or set ui.tokenFile to a file holding a long random token (e.g. `openssl rand -hex 32 > ui.token; chmod 600 ui.token`)',
    });
  }
  if (ui.tls === undefined && ui.behindTlsProxy !== true) {
    throw new WbsyncError('config', `${where}: the web console would listen on ${host}, beyond loopback, over plain HTTP (the token and the session cookie would travel in clear)`, {
      hint: 'set ui.tls.certFile and ui.tls.keyFile (a certificate and its key), or put a TLS-terminating proxy in front and set ui.behindTlsProxy: true (see docs/security.md)',
    });
  }
}

/** Bits of a token by the spread of its characters (Shannon entropy × length): repeats and tiny alphabets score low. */
export function tokenBits(token: string): number {
  const chars = [...token];
  const counts = new Map<string, number>();
  for (const c of chars) counts.set(c, (counts.get(c) ?? 0) + 1);
  let perChar = 0;
  for (const n of counts.values()) perChar -= (n / chars.length) * Math.log2(n / chars.length);
  return perChar * chars.length;
}

/** Fewest estimated bits a token must carry: `openssl rand -hex 16` gives ~110, `-hex 32` ~240. */
export const MIN_TOKEN_BITS = 64;

/** The token in ui.tokenFile (trimmed); a missing, empty, short or guessable token is a configuration error. */
export function readToken(tokenFile: string): string {
  let text: string;
  try {
    text = readFileSync(tokenFile, 'utf8');
  } catch (e) {
    throw new WbsyncError('config', `ui.tokenFile: cannot read ${tokenFile} (${(e as NodeJS.ErrnoException).code ?? 'error'})`, { hint: 'create it with a long random token, mode 0600' });
  }
  const token = text.trim();
  const hint = 'put a long random token in it, e.g. `openssl rand -hex 32 > ui.token; chmod 600 ui.token`';
  if (token.length < 16) throw new WbsyncError('config', `ui.tokenFile: ${tokenFile} holds ${token.length ? 'a token shorter than 16 characters' : 'no token'}`, { hint });
  const bits = tokenBits(token);
  if (bits < MIN_TOKEN_BITS || new Set(token).size < 6) {
    throw new WbsyncError('config', `ui.tokenFile: ${tokenFile} holds a guessable token (about ${Math.floor(bits)} bits; at least ${MIN_TOKEN_BITS} wanted: too few different characters)`, { hint });
  }
  return token;
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** A cookie's value from the Cookie header. */
export function cookieOf(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}

/** The bearer token of an Authorization header, if it carries one. */
export function bearerOf(header: string | undefined): string | undefined {
  return typeof header === 'string' && /^Bearer\s+/i.test(header) ? header.replace(/^Bearer\s+/i, '').trim() : undefined;
}

// The token-protected console's door: who is authorised (bearer or a live session), the sign-in
// form and its POST (rate-limited per address), and sign-out (POST, forgets the session).

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../config/logger.js';
import { html, type Html } from './html.js';
import { page } from './layout.js';
import { BadRequest } from './params.js';
import { bearerOf, cookieOf, sameSecret } from './security.js';
import { LoginLimiter, SESSION_COOKIE, SessionStore, clearedCookie, sessionCookie } from './sessions.js';

export type Send = (res: ServerResponse, status: number, type: string, body: string, head: boolean, extra?: Record<string, string>) => void;

const HTML = 'text/html; charset=utf-8';

export function loginPage(base: string, notice: 'wrong' | 'limited' | 'signed-out' | null): Html {
  const says = {
    wrong: html`<p class="notice bad">That token is not the one configured.</p>`,
    limited: html`<p class="notice bad">Too many wrong tokens from here: wait a minute and try again.</p>`,
    'signed-out': html`<p class="notice">Signed out.</p>`,
  };
  return page({
    base,
    title: 'Sign in',
    section: 'none',
    bare: true,
    body: html`<div class="card login"><h1>Sign in</h1><p class="sub">This console needs the token in <span class="mono">ui.tokenFile</span>. Scripts can send it as <span class="mono">Authorization: Bearer …</span> instead.</p>
      ${notice ? says[notice] : ''}
      <form method="post" action="${base}/login"><p><input type="password" name="token" autocomplete="current-password" aria-label="token"></p><button type="submit">Sign in</button></form></div>`,
  });
}

/** The sign-out button the header shows when a token protects the console. */
export function signOutForm(base: string): Html {
  return html`<form class="signout" method="post" action="${base}/logout"><button type="submit">Sign out</button></form>`;
}

function readForm(req: IncomingMessage, limit: number): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        reject(new BadRequest('form too large'));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
    req.on('error', reject);
  });
}

export interface Door {
  /**
   * 'ok' when no token is configured, or the request carries it (bearer) or a live session; a
   * wrong bearer counts as a failed sign-in, and an address past the limit gets the seconds to wait.
   */
  authorise(req: IncomingMessage): 'ok' | 'no' | { retryAfter: number };
  login(req: IncomingMessage, res: ServerResponse): void;
  logout(req: IncomingMessage, res: ServerResponse): void;
  /** Live sessions (for tests and the log). */
  sessions(): number;
}

export function createDoor(opts: { base: string; token: string | null; sessionMs: number; secureCookie: boolean; logger: Logger; send: Send; fail: (res: ServerResponse, e: unknown) => void; now?: () => number }): Door {
  const { base, token, logger, send } = opts;
  const store = new SessionStore(opts.sessionMs, opts.now);
  const limiter = new LoginLimiter(5, 30, 60_000, opts.now);
  const address = (req: IncomingMessage): string => req.socket.remoteAddress ?? 'unknown';
  return {
    authorise(req) {
      if (token === null) return 'ok';
      const bearer = bearerOf(req.headers.authorization);
      if (bearer !== undefined) {
        const wait = limiter.retryAfter(address(req), true);
        if (wait > 0) return { retryAfter: wait };
        if (sameSecret(bearer, token)) return 'ok';
        limiter.fail(address(req));
        return 'no';
      }
      return store.isLive(cookieOf(req.headers.cookie, SESSION_COOKIE)) ? 'ok' : 'no';
    },
    login(req, res) {
      if (token === null) return send(res, 303, 'text/plain; charset=utf-8', '', false, { location: `${base}/` });
      if (req.method !== 'POST') return send(res, 200, HTML, loginPage(base, null).text, req.method === 'HEAD');
      const wait = limiter.retryAfter(address(req));
      if (wait > 0) {
        req.resume();
        logger.warn({ from: address(req), retryAfter: wait }, 'console sign-in refused: too many wrong tokens');
        return send(res, 429, HTML, loginPage(base, 'limited').text, false, { 'retry-after': String(wait) });
      }
      readForm(req, 4096).then((form) => {
        const given = (form.get('token') ?? '').trim();
        if (!sameSecret(given, token)) {
          limiter.fail(address(req));
          logger.warn({ from: address(req) }, 'console sign-in with a wrong token');
          return send(res, 401, HTML, loginPage(base, 'wrong').text, false);
        }
        limiter.succeed(address(req));
        const id = store.open();
        send(res, 303, 'text/plain; charset=utf-8', '', false, { location: `${base}/`, 'set-cookie': sessionCookie(id, base, opts.sessionMs, opts.secureCookie) });
      }, (e: unknown) => opts.fail(res, e));
    },
    logout(req, res) {
      if (token === null) return send(res, 303, 'text/plain; charset=utf-8', '', false, { location: `${base}/` });
      if (req.method !== 'POST') return send(res, 405, 'text/plain; charset=utf-8', 'method not allowed: sign out with POST (the button in the header)\n', false, { allow: 'POST' });
      req.resume();
      store.close(cookieOf(req.headers.cookie, SESSION_COOKIE));
      send(res, 200, HTML, loginPage(base, 'signed-out').text, false, { 'set-cookie': clearedCookie(base, opts.secureCookie) });
    },
    sessions: () => store.size,
  };
}

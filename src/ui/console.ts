// The web console as one request handler mounted under a base path (/ui): the daemon's listener
// and `wbsync ui` both serve it. It opens its own read-only connection to the database, so a page
// never sees a pass's half-written batch, and nothing it does can write.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config/schema.js';
import type { Logger } from '../config/logger.js';
import { ConsoleReads } from '../store/console-reads.js';
import { openStore } from '../store/index.js';
import type { ConsoleEnv, LiveStatus, Reply, ScheduleView } from './env.js';
import { html, type Html } from './html.js';
import { page } from './layout.js';
import { BadRequest, NotFound } from './params.js';
import { browsePage } from './pages/browse.js';
import { changesPage } from './pages/changes.js';
import { modulePage } from './pages/module.js';
import { overviewPage } from './pages/overview.js';
import { recordPage } from './pages/record.js';
import { recoverPage } from './pages/recover.js';
import { searchPage } from './pages/search.js';
import { snapshotsPage } from './pages/snapshots.js';
import { SECURITY_HEADERS, isAuthorised, sameSecret, sessionCookie } from './security.js';
import { CONSOLE_CSS } from './styles.js';

export interface ConsoleOptions {
  dbPath: string;
  config: Config;
  /** The bearer token (from ui.tokenFile); null: no token, loopback only. */
  token: string | null;
  logger: Logger;
  base?: string;
  now?: () => Date;
  schedule: ScheduleView;
  live?: () => LiveStatus | null;
}

export interface WebConsole {
  base: string;
  /** Handles a request whose path is under `base`. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  close(): void;
}

type Route = (env: ConsoleEnv, q: URLSearchParams, id: string) => Reply;

const ROUTES: Array<[RegExp, Route]> = [
  [/^\/?$/, (env) => overviewPage(env)],
  [/^\/snapshots$/, (env) => snapshotsPage(env)],
  [/^\/changes$/, (env, q) => changesPage(env, q)],
  [/^\/browse$/, (env, q) => browsePage(env, q)],
  [/^\/module\/([^/]+)$/, (env, q, id) => modulePage(env, id, q)],
  [/^\/record\/([^/]+)$/, (env, q, id) => recordPage(env, id, q)],
  [/^\/search$/, (env, q) => searchPage(env, q)],
  [/^\/recover$/, (env, q) => recoverPage(env, q)],
];

function send(res: ServerResponse, status: number, type: string, body: string, head: boolean, extra: Record<string, string> = {}): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': type, 'content-length': Buffer.byteLength(body), ...extra });
  res.end(head ? undefined : body);
}

function messagePage(base: string, title: string, text: string, extra: Html | string = ''): Html {
  return page({ base, title, section: 'none', body: html`<h1>${title}</h1><div class="card"><p class="text">${text}</p>${extra}<p><a href="${base}/">Back to the overview</a></p></div>` });
}

function loginPage(base: string, wrong: boolean): Html {
  return page({
    base,
    title: 'Sign in',
    section: 'none',
    bare: true,
    body: html`<div class="card login"><h1>Sign in</h1><p class="sub">This console needs the token in <span class="mono">ui.tokenFile</span>. Scripts can send it as <span class="mono">Authorization: Bearer …</span> instead.</p>
      ${wrong ? html`<p class="notice bad">That token is not the one configured.</p>` : ''}
      <form method="post" action="${base}/login"><p><input type="password" name="token" autocomplete="current-password" aria-label="token"></p><button type="submit">Sign in</button></form></div>`,
  });
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

export function createConsole(opts: ConsoleOptions): WebConsole {
  const base = opts.base ?? '/ui';
  const store = openStore(opts.dbPath, { readonly: true });
  const env: ConsoleEnv = { base, store, reads: new ConsoleReads(store.db, store.path), config: opts.config, now: opts.now ?? (() => new Date()), schedule: opts.schedule, live: opts.live };
  const { token, logger } = opts;
  const html200 = 'text/html; charset=utf-8';

  const fail = (res: ServerResponse, e: unknown, head: boolean): void => {
    if (e instanceof NotFound) return send(res, 404, html200, messagePage(base, 'Not found', `Nothing here: ${e.what}.`).text, head);
    if (e instanceof BadRequest) return send(res, 400, html200, messagePage(base, 'Bad request', e.message).text, head);
    logger.error({ err: e instanceof Error ? (e.stack ?? e.message) : String(e) }, 'console page failed');
    return send(res, 500, html200, messagePage(base, 'Something went wrong', 'The page could not be built. The details are in the log.').text, head);
  };

  const login = (req: IncomingMessage, res: ServerResponse): void => {
    if (token === null) return send(res, 303, 'text/plain; charset=utf-8', '', false, { location: `${base}/` });
    if (req.method !== 'POST') return send(res, 200, html200, loginPage(base, false).text, req.method === 'HEAD');
    readForm(req, 4096).then(
      (form) => {
        const given = form.get('token') ?? '';
        if (!sameSecret(given.trim(), token)) {
          logger.warn({}, 'console sign-in with a wrong token');
          return send(res, 401, html200, loginPage(base, true).text, false);
        }
        send(res, 303, 'text/plain; charset=utf-8', '', false, { location: `${base}/`, 'set-cookie': sessionCookie(token, base) });
      },
      (e: unknown) => fail(res, e, false),
    );
  };

  return {
    base,
    handle(req, res) {
      const head = req.method === 'HEAD';
      let url: URL;
      try {
        url = new URL(req.url ?? '/', 'http://console.invalid');
      } catch {
        return send(res, 400, 'text/plain; charset=utf-8', 'bad request\n', head);
      }
      if (!url.pathname.startsWith(base)) return send(res, 404, 'text/plain; charset=utf-8', 'not found\n', head);
      const path = url.pathname.slice(base.length);
      if (path === '') return send(res, 308, 'text/plain; charset=utf-8', '', head, { location: `${base}/` });
      if (path === '/static/console.css') {
        if (req.method !== 'GET' && !head) return send(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n', false, { allow: 'GET, HEAD' });
        return send(res, 200, 'text/css; charset=utf-8', CONSOLE_CSS, head, { 'cache-control': 'public, max-age=3600' });
      }
      if (path === '/login') return login(req, res);
      if (req.method !== 'GET' && !head) return send(res, 405, 'text/plain; charset=utf-8', 'method not allowed: the console is read-only\n', false, { allow: 'GET, HEAD' });
      if (!isAuthorised(req, token)) {
        const wantsHtml = (req.headers.accept ?? '').includes('text/html');
        return wantsHtml
          ? send(res, 401, html200, loginPage(base, false).text, head, { 'www-authenticate': 'Bearer realm="wbsync console"' })
          : send(res, 401, 'text/plain; charset=utf-8', 'unauthorised: send Authorization: Bearer <the token in ui.tokenFile>\n', head, { 'www-authenticate': 'Bearer realm="wbsync console"' });
      }
      for (const [re, route] of ROUTES) {
        const m = re.exec(path);
        if (!m) continue;
        try {
          let id = '';
          if (m[1] !== undefined) {
            try {
              id = decodeURIComponent(m[1]);
            } catch {
              throw new NotFound('such a page');
            }
          }
          const r = route(env, url.searchParams, id);
          return send(res, r.status, html200, r.body.text, head);
        } catch (e) {
          return fail(res, e, head);
        }
      }
      return fail(res, new NotFound(`a page at ${path.slice(0, 100)}`), head);
    },
    close() {
      store.close();
    },
  };
}

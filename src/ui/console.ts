// The web console as one request handler mounted under a base path (/ui): the daemon's listener
// and `wbsync ui` both serve it. It opens its own read-only connection to the database, so a page
// never sees a pass's half-written batch, and nothing it does can write.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config/schema.js';
import type { Logger } from '../config/logger.js';
import { ConsoleReads } from '../store/read/index.js';
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
import { hostPolicy, judgeRequest } from './request-guard.js';
import { SECURITY_HEADERS } from './security.js';
import { createDoor, loginPage, signOutForm } from './sign-in.js';
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
  /** The address the listener binds (its Host names are accepted, beside loopback and ui.hosts). */
  listenHost: string;
  /** Served over HTTPS (ui.tls): the session cookie is Secure, a port-less Host means 443. */
  tls?: boolean;
}

export interface WebConsole {
  base: string;
  /** Handles a request whose path is under `base`. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Refuses (and answers) a request naming a foreign Host or coming from another site; true when it may go on. */
  admit(req: IncomingMessage, res: ServerResponse): boolean;
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

export function createConsole(opts: ConsoleOptions): WebConsole {
  const base = opts.base ?? '/ui';
  const store = openStore(opts.dbPath, { readonly: true });
  const env: ConsoleEnv = { base, store, reads: new ConsoleReads(store.db, store.path), config: opts.config, now: opts.now ?? (() => new Date()), schedule: opts.schedule, live: opts.live };
  const { token, logger } = opts;
  const html200 = 'text/html; charset=utf-8';
  const tls = opts.tls ?? false;
  const policy = hostPolicy(opts.listenHost, opts.config.ui.hosts);
  let lastRefusalLog = 0;

  const fail = (res: ServerResponse, e: unknown, head: boolean): void => {
    if (e instanceof NotFound) return send(res, 404, html200, messagePage(base, 'Not found', `Nothing here: ${e.what}.`).text, head);
    if (e instanceof BadRequest) return send(res, 400, html200, messagePage(base, 'Bad request', e.message).text, head);
    logger.error({ err: e instanceof Error ? (e.stack ?? e.message) : String(e) }, 'console page failed');
    return send(res, 500, html200, messagePage(base, 'Something went wrong', 'The page could not be built. The details are in the log.').text, head);
  };

  const door = createDoor({
    base,
    token,
    sessionMs: opts.config.ui.sessionHours * 3_600_000,
    secureCookie: tls || opts.config.ui.behindTlsProxy,
    logger,
    send,
    fail: (res, e) => fail(res, e, false),
  });
  const signOut = token === null ? '' : signOutForm(base).text;

  const admit = (req: IncomingMessage, res: ServerResponse): boolean => {
    const v = judgeRequest(req, policy, { tls });
    if (v.ok) return true;
    // A rebinding page may retry in a loop: one line a minute is enough to notice it.
    if (Date.now() - lastRefusalLog > 60_000) {
      lastRefusalLog = Date.now();
      logger.warn({ reason: v.reason, from: req.socket.remoteAddress }, 'console request refused (foreign host or another site; further ones this minute not logged)');
    }
    send(res, v.status, 'text/plain; charset=utf-8', `refused: ${v.reason}. The console answers only to its own address (loopback, its listen address, ui.hosts) and to its own pages.\n`, req.method === 'HEAD');
    return false;
  };

  return {
    base,
    admit,
    handle(req, res) {
      const head = req.method === 'HEAD';
      if (!admit(req, res)) return;
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
      if (path === '/login') return door.login(req, res);
      if (path === '/logout') return door.logout(req, res);
      if (req.method !== 'GET' && !head) return send(res, 405, 'text/plain; charset=utf-8', 'method not allowed: the console is read-only\n', false, { allow: 'GET, HEAD' });
      const verdict = door.authorise(req);
      if (typeof verdict === 'object') {
        return send(res, 429, 'text/plain; charset=utf-8', `too many wrong tokens from this address: try again in ${verdict.retryAfter} s\n`, head, { 'retry-after': String(verdict.retryAfter) });
      }
      if (verdict === 'no') {
        const wantsHtml = (req.headers.accept ?? '').includes('text/html');
        return wantsHtml
          ? send(res, 401, html200, loginPage(base, null).text, head, { 'www-authenticate': 'Bearer realm="wbsync console"' })
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
          return send(res, r.status, html200, signOut ? r.body.text.replace('</header>', `${signOut}</header>`) : r.body.text, head);
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

// The web console on a fleet worker's listener (fleet.listen), under /ui/, with the daemon's rules:
// left out (logged) beyond loopback without ui.tokenFile or without TLS / a declared TLS proxy; every
// request's Host and Origin judged (src/ui/request-guard.ts); one sign-in (ui.tokenFile) for the
// whole /ui tree. /ui/ is the Fleet page: every tenant of the fleet with its home, state, last pass
// and freshness (read from Postgres, src/fleet/status.ts, with the configured
// freshness.maxStalenessMinutes) and why any is failing, the ones homed here linking to
// /ui/t/NAME/ — the single-machine console (src/ui/console.ts, read-only) over that tenant's own
// database, opened on first use and closed once the tenant leaves this worker.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config/schema.js';
import type { Logger } from '../config/logger.js';
import { scheduleView } from '../daemon/console-schedule.js';
import type { HealthBody } from '../daemon/health-state.js';
import { isWbsyncError } from '../domain/errors.js';
import { createConsole, type WebConsole } from '../ui/console.js';
import { html, Html } from '../ui/html.js';
import { page } from '../ui/layout.js';
import { hostPolicy, judgeRequest } from '../ui/request-guard.js';
import { readConsoleSecrets, readTlsMaterial, type TlsMaterial } from '../ui/secrets.js';
import { checkListen, SECURITY_HEADERS } from '../ui/security.js';
import { createDoor, loginPage, signOutForm } from '../ui/sign-in.js';
import { CONSOLE_CSS } from '../ui/styles.js';
import type { FleetStatus, TenantStatus } from './status.js';
import { tenantDbPath } from './tenant-config.js';

/** What the console needs of a tenant running here. */
export interface LocalTenant {
  name: string;
  epoch: number;
  config: Config | null;
  health(): { httpStatus: number; body: unknown } | null;
}

export interface FleetConsoleOptions {
  workerId: string;
  config: Config;
  logger: Logger;
  host: string;
  dataDir: string;
  local(): LocalTenant[];
  status(): Promise<FleetStatus>;
}

export interface FleetConsole {
  base: string;
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Closes the console of a tenant leaving this worker (its database may be copied or moved next). */
  release(tenant: string): void;
  close(): void;
}

const BASE = '/ui';
const HTML = 'text/html; charset=utf-8';
const TEXT = 'text/plain; charset=utf-8';

function send(res: ServerResponse, status: number, type: string, body: string, head: boolean, extra: Record<string, string> = {}): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': type, 'content-length': Buffer.byteLength(body), ...extra });
  res.end(head ? undefined : body);
}

const ago = (s: number | null): string => (s === null ? 'never' : s < 120 ? `${s}s ago` : s < 7200 ? `${Math.round(s / 60)}m ago` : `${Math.round(s / 3600)}h ago`);

/** The Fleet page. Names and errors come from the registry and the runs: all escaped by html``. */
export function fleetPage(workerId: string, s: FleetStatus, here: ReadonlySet<string>, signOut: Html | string): Html {
  const row = (t: TenantStatus): Html => {
    const local = here.has(t.name);
    const name = local ? html`<a href="${BASE}/t/${encodeURIComponent(t.name)}/">${t.name}</a>` : html`${t.name}`;
    const home = t.home ? `${t.home.worker}${t.home.workerLive ? '' : ' (gone)'}${t.home.worker === workerId ? ' (this worker)' : ''}` : '-';
    const state = t.paused ? 'paused' : t.running ? `running ${t.running.kind}` : 'idle';
    const last = t.lastPass ? `${t.lastPass.kind} ${t.lastPass.finishedAt.slice(0, 19)}Z` : '-';
    const result = t.lastPass ? (t.lastPass.ok ? `ok${t.lastPass.snapshot ? ` #${t.lastPass.snapshot}` : ''}` : `FAILED: ${(t.lastPass.error ?? '').replace(/\s+/g, ' ').slice(0, 120)}`) : '-';
    return html`<tr><td>${name}</td><td>${home}</td><td>${state}</td><td>${last}</td><td>${result}</td><td>${ago(t.freshnessSeconds)}</td><td>${t.failuresSinceSuccess}</td></tr>`;
  };
  // why a tenant is failing, as `wbsync fleet status` says it (status-verdict.ts: its freshness bound is the configured one)
  const failing = s.tenants.filter((t) => t.problems.length > 0);
  const body = html`<h1>Fleet</h1>
<div class="card"><p class="text">Worker ${workerId}: ${here.size} tenant(s) homed here (their names open their backups). Every tenant of the fleet, as Postgres has it at ${s.at.slice(0, 19)}Z:</p>
<table><thead><tr><th>tenant</th><th>home</th><th>state</th><th>last pass</th><th>result</th><th>fresh</th><th>failures</th></tr></thead>
<tbody>${s.tenants.length ? s.tenants.map(row) : html`<tr><td colspan="7">no tenants</td></tr>`}</tbody></table></div>
${failing.length ? html`<div class="card"><p class="text">${failing.length} of ${s.tenants.length} tenant(s) failing:</p><ul>${failing.flatMap((t) => t.problems.map((p) => html`<li>${t.name}: ${p}</li>`))}</ul></div>` : ''}
<div class="card"><table><thead><tr><th>worker</th><th>tenants</th><th>heartbeat</th><th>state</th></tr></thead>
<tbody>${s.workers.map((w) => html`<tr><td>${w.id}</td><td>${w.tenants}/${w.capacity}</td><td>${ago(w.heartbeatAgeSeconds)}</td><td>${w.draining ? 'draining' : w.live ? 'live' : 'GONE'}</td></tr>`)}</tbody></table></div>`;
  return new Html(page({ base: BASE, title: 'Fleet', section: 'none', bare: true, body }).text.replace('</header>', `${signOut}</header>`));
}

/** What the console's request handling works with: the worker's options and its console's rules. */
interface ConsoleContext {
  opts: FleetConsoleOptions;
  policy: ReturnType<typeof hostPolicy>;
  secure: boolean;
  door: ReturnType<typeof createDoor>;
  signOut: string;
  /** Open consoles per tenant homed here (by epoch: a tenant that moved away and back gets a new one). */
  consoles: Map<string, { epoch: number; ui: WebConsole }>;
  lastRefusalLog: number;
}

/** The console for a worker, or null (logged) when listening beyond loopback without its safeguards. */
export function mountFleetConsole(opts: FleetConsoleOptions): { ui: FleetConsole | null; tls: TlsMaterial | undefined } {
  const { config, logger } = opts;
  try {
    checkListen(opts.host, config.ui, 'fleet.listen');
  } catch (e) {
    if (!isWbsyncError(e)) throw e;
    const why = config.ui.tokenFile === undefined ? 'ui.tokenFile is not set' : 'neither TLS (ui.tls) nor a TLS-terminating proxy (ui.behindTlsProxy) is configured';
    logger.warn({ listen: config.fleet.listen, hint: e.hint }, `web console not served: fleet.listen is beyond loopback and ${why}`);
    return { ui: null, tls: readTlsMaterial(config.ui) };
  }
  const { token, tls } = readConsoleSecrets(config.ui, logger);
  const secure = tls !== undefined;
  const door = createDoor({ base: BASE, token, sessionMs: config.ui.sessionHours * 3_600_000, secureCookie: secure || config.ui.behindTlsProxy, logger, send, fail: (res, e) => fail(logger, res, e, false) });
  const ctx: ConsoleContext = { opts, policy: hostPolicy(opts.host, config.ui.hosts), secure, door, signOut: token === null ? '' : signOutForm(BASE).text, consoles: new Map(), lastRefusalLog: 0 };
  const { consoles } = ctx;
  return {
    ui: {
      base: BASE,
      handle: (req, res) => handleRequest(ctx, req, res),
      release(tenant) {
        consoles.get(tenant)?.ui.close();
        consoles.delete(tenant);
      },
      close() {
        for (const c of consoles.values()) c.ui.close();
        consoles.clear();
      },
    },
    tls,
  };
}

function fail(logger: Logger, res: ServerResponse, e: unknown, head: boolean): void {
  logger.error({ err: e instanceof Error ? (e.stack ?? e.message) : String(e) }, 'fleet console page failed');
  send(res, 500, TEXT, 'The page could not be built. The details are in the log.\n', head);
}

/** A request under /ui: judged (host, origin), then the console's own files and the sign-in, then
 * (signed in) the Fleet page or a tenant's console. */
function handleRequest(ctx: ConsoleContext, req: IncomingMessage, res: ServerResponse): void {
  const { door, opts } = ctx;
  const head = req.method === 'HEAD';
  const v = judgeRequest(req, ctx.policy, { tls: ctx.secure });
  if (!v.ok) {
    if (Date.now() - ctx.lastRefusalLog > 60_000) {
      ctx.lastRefusalLog = Date.now();
      opts.logger.warn({ reason: v.reason, from: req.socket.remoteAddress }, 'console request refused (foreign host or another site; further ones this minute not logged)');
    }
    return send(res, v.status, TEXT, `refused: ${v.reason}. The console answers only to its own address (loopback, its listen address, ui.hosts) and to its own pages.\n`, head);
  }
  const path = (req.url ?? '/').split('?')[0]!;
  if (path === BASE) return send(res, 308, TEXT, '', head, { location: `${BASE}/` });
  if (path === `${BASE}/static/console.css`) return send(res, 200, 'text/css; charset=utf-8', CONSOLE_CSS, head, { 'cache-control': 'public, max-age=3600' });
  if (path === `${BASE}/login`) return door.login(req, res);
  if (path === `${BASE}/logout`) return door.logout(req, res);
  if (req.method !== 'GET' && !head) return send(res, 405, TEXT, 'method not allowed: the console is read-only\n', false, { allow: 'GET, HEAD' });
  const verdict = door.authorise(req);
  if (typeof verdict === 'object') return send(res, 429, TEXT, `too many wrong tokens from this address: try again in ${verdict.retryAfter} s\n`, head, { 'retry-after': String(verdict.retryAfter) });
  if (verdict === 'no') {
    const wantsHtml = (req.headers.accept ?? '').includes('text/html');
    return wantsHtml
      ? send(res, 401, HTML, loginPage(BASE, null).text, head, { 'www-authenticate': 'Bearer realm="wbsync console"' })
      : send(res, 401, TEXT, 'unauthorised: send Authorization: Bearer <the token in ui.tokenFile>\n', head, { 'www-authenticate': 'Bearer realm="wbsync console"' });
  }
  const local = opts.local();
  closeDeparted(ctx, local);
  if (path === `${BASE}/`) {
    opts.status().then(
      (s) => send(res, 200, HTML, fleetPage(opts.workerId, s, new Set(local.map((t) => t.name)), ctx.signOut).text, head),
      (e: unknown) => fail(opts.logger, res, e, head),
    );
    return;
  }
  serveTenant(ctx, req, res, path, local);
}

/** Closes the consoles of tenants no longer homed here. */
function closeDeparted(ctx: ConsoleContext, local: LocalTenant[]): void {
  for (const name of ctx.consoles.keys()) {
    if (!local.some((t) => t.name === name)) {
      ctx.consoles.get(name)!.ui.close();
      ctx.consoles.delete(name);
    }
  }
}

/** /ui/t/NAME/...: the console of a tenant homed here (404 for any other, 503 until it has started). */
function serveTenant(ctx: ConsoleContext, req: IncomingMessage, res: ServerResponse, path: string, local: LocalTenant[]): void {
  const head = req.method === 'HEAD';
  const m = /^\/ui\/t\/([^/]+)(\/.*)?$/.exec(path);
  let name = '';
  try {
    name = m ? decodeURIComponent(m[1]!) : '';
  } catch {
    name = '';
  }
  const t = local.find((x) => x.name === name);
  if (!t) return send(res, 404, HTML, page({ base: BASE, title: 'Not found', section: 'none', bare: true, body: html`<h1>Not found</h1><div class="card"><p class="text">No tenant of this worker at that address: its backup is opened on the worker it is homed on.</p><p><a href="${BASE}/">Back to the fleet</a></p></div>` }).text, head);
  let ui: WebConsole | null;
  try {
    ui = tenantConsole(ctx, t);
  } catch (e) {
    return fail(ctx.opts.logger, res, e, head);
  }
  if (!ui) return send(res, 503, TEXT, 'this tenant has not started on this worker yet: try again shortly\n', head, { 'retry-after': '5' });
  return ui.handle(req, res);
}

/** The console over a local tenant's own database, opened on first use (null until it has its settings). */
function tenantConsole(ctx: ConsoleContext, t: LocalTenant): WebConsole | null {
  const { opts, consoles } = ctx;
  const { config, logger } = opts;
  const open = consoles.get(t.name);
  if (open && open.epoch === t.epoch) return open.ui;
  open?.ui.close();
  consoles.delete(t.name);
  if (!t.config) return null;
  const ui = createConsole({
    dbPath: tenantDbPath(opts.dataDir, t.name),
    // the tenant's settings, with the worker's console rules (hosts, sessions)
    config: { ...t.config, ui: config.ui },
    // the worker's door (handleRequest) has signed the request in already
    token: null,
    logger: logger.child({ tenant: t.name }),
    base: `${BASE}/t/${encodeURIComponent(t.name)}`,
    schedule: scheduleView(t.config),
    listenHost: opts.host,
    tls: ctx.secure,
    live: () => {
      const h = t.health()?.body as HealthBody | undefined;
      return h ? { status: h.status, reason: h.reason, running: h.running } : null;
    },
  });
  consoles.set(t.name, { epoch: t.epoch, ui });
  return ui;
}

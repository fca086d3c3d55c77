// The emulator's interface, where its user is: `GET /api` answers an index of every route (method,
// path, request, response, which dialects serve it, what the observed dialect does differently) as
// JSON, or as a page when a browser asks (Accept: text/html); docs/emulator.md holds the same table
// as Markdown. All of it is generated from the route table (routes/index.ts) and ROUTE_DOCS, so it
// cannot drift: a test checks the page, the index and the Markdown against the table.

import { escapeHtml, type Reply } from './http-reply.js';
import { ROUTE_DOCS } from './interface-routes.js';
import type { RouteDef } from './router.js';
import type { Dialect } from './types.js';

export const AUTHENTICATION =
  'Every /api route needs a credential: header `x-api-key: <key>` (the key `wbsync emulator` prints, one per seeded user) or `Authorization: Bearer <token>`. `GET /` (outside /api, no credential) is the health check; `GET /api` is this index.';

/** What differs between the dialects beyond single routes. */
export const DIALECTS: Readonly<Record<Dialect, readonly string[]>> = {
  spec: [
    'The published interface as written: errors are JSON `{message}` with the status the interface names (401, 403, 404, 429, 503).',
    'Creates of collections, columns and record values answer the object itself; other creates and updates answer `{X}` or `{message, X}` as the route says.',
    'POST /api-key/generate is limited to once per 20 minutes (429 with `nextAllowedAt`).',
    'While the database is down, /api answers 503.',
  ],
  observed: [
    'How the deployed service really behaves (an Express app): unknown routes and malformed JSON bodies get Express HTML 404/400 pages, not JSON; most validation failures are 500.',
    'Every create and update is wrapped with a message: `{message, collection}`, `{message, column}`, `{message, recordValue}`…',
    'Lists take optional offset paging: `page` and `limit` (1–200) add `pagination: {page, limit, total, totalPages, hasMore, nextPage}`.',
    'A malformed or unknown child id in a board-scoped path (collection, column, record, record value, amendment) answers 400 "Invalid board id".',
    'GET answers carry a weak ETag; If-None-Match gets 304. No rate limit anywhere.',
    'While the database is down, calls hang about 10 s, then answer 500 — or 401 "Invalid token" when made with x-api-key.',
    'API writes fire automations asynchronously after the response. Deletes of modules, collections and columns do not cascade.',
    'Notifications routes and member accept/decline do not exist (404 HTML).',
  ],
};

export interface InterfaceRoute {
  method: string;
  path: string;
  group: string;
  request: string;
  response: string;
  dialects: Dialect[];
  observed: string | null;
}

function doc(r: RouteDef): InterfaceRoute {
  const name = `${r.method} ${r.template}`;
  const d = ROUTE_DOCS[name];
  if (!d) throw new Error(`route ${name} has no entry in ROUTE_DOCS (src/emulator/interface-routes.ts)`);
  const dialects: Dialect[] = r.only ? [r.only] : ['spec', 'observed'];
  const observed = r.only === 'spec' ? 'No such route (Express HTML 404).' : (d.observed ?? null);
  return { method: r.method, path: `/api${r.template}`, group: d.group, request: d.request, response: d.response, dialects, observed };
}

/** Every route, grouped as the published interface groups them. */
export function interfaceRoutes(routes: readonly RouteDef[]): InterfaceRoute[] {
  return routes.map(doc);
}

export interface InterfaceIndex {
  service: string;
  dialect: Dialect;
  authentication: string;
  dialects: Readonly<Record<Dialect, readonly string[]>>;
  routes: InterfaceRoute[];
}

export function interfaceIndex(routes: readonly RouteDef[], dialect: Dialect): InterfaceIndex {
  return {
    service: 'Workspace Board Service, as the wbsync emulator serves it',
    dialect,
    authentication: AUTHENTICATION,
    dialects: DIALECTS,
    routes: interfaceRoutes(routes),
  };
}

/** Markdown inline code (`x`) kept; the rest of a cell escaped for a table. */
function mdCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** The route table of docs/emulator.md. */
export function renderInterfaceMarkdown(routes: readonly RouteDef[]): string {
  const out: string[] = [];
  let group = '';
  for (const r of interfaceRoutes(routes)) {
    if (r.group !== group) {
      group = r.group;
      out.push('', `### ${group}`, '', '| route | request | response | observed dialect |', '|---|---|---|---|');
    }
    out.push(`| \`${r.method} ${r.path}\` | ${mdCell(r.request)} | ${mdCell(r.response)} | ${r.observed ? mdCell(r.observed) : 'as the spec'} |`);
  }
  return out.join('\n').trim();
}

/** `code` spans of the interface text as <code>, everything else escaped. */
function htmlText(text: string): string {
  return text
    .split('`')
    .map((part, i) => (i % 2 === 1 ? `<code>${escapeHtml(part)}</code>` : escapeHtml(part)))
    .join('');
}

export function renderInterfaceHtml(index: InterfaceIndex): string {
  const rows: string[] = [];
  let group = '';
  for (const r of index.routes) {
    if (r.group !== group) {
      group = r.group;
      rows.push(`<tr><th colspan="4">${escapeHtml(group)}</th></tr>`);
    }
    const here = r.dialects.includes(index.dialect) ? '' : ' (not served by this dialect)';
    rows.push(
      `<tr><td><code>${escapeHtml(`${r.method} ${r.path}`)}</code>${escapeHtml(here)}</td><td>${htmlText(r.request)}</td><td>${htmlText(r.response)}</td><td>${r.observed ? htmlText(r.observed) : 'as the spec'}</td></tr>`,
    );
  }
  const list = (items: readonly string[]): string => `<ul>${items.map((i) => `<li>${htmlText(i)}</li>`).join('')}</ul>`;
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8"><title>Workspace Board Service emulator: interface</title></head><body>',
    `<h1>Workspace Board Service emulator (${escapeHtml(index.dialect)} dialect)</h1>`,
    `<p>${htmlText(index.authentication)} The same as JSON: <code>GET /api</code> without <code>Accept: text/html</code>.</p>`,
    '<h2>Dialects</h2>',
    `<h3>spec</h3>${list(index.dialects.spec)}<h3>observed</h3>${list(index.dialects.observed)}`,
    '<h2>Routes</h2>',
    `<table><tr><th>route</th><th>request</th><th>response</th><th>observed dialect</th></tr>${rows.join('')}</table>`,
    '</body></html>',
    '',
  ].join('\n');
}

/** The answer to GET /api: the page for a browser, JSON otherwise. */
export function interfaceReply(routes: readonly RouteDef[], dialect: Dialect, accept: string | undefined): Reply {
  const index = interfaceIndex(routes, dialect);
  if (accept && /\btext\/html\b/.test(accept)) return { status: 200, html: renderInterfaceHtml(index) };
  return { status: 200, json: index };
}

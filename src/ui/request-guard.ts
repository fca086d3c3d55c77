// Against DNS rebinding and cross-site reads: a request must name one of our own hosts in its Host
// header (loopback names, the listen address, ui.hosts; with the port we listen on), and a browser
// request from another origin (Origin, Sec-Fetch-Site) is refused unless it is a plain top-level
// navigation (a link someone followed: that page cannot read the answer, and no cookie rides along).

import type { IncomingMessage } from 'node:http';
import { hostname, networkInterfaces } from 'node:os';

export interface HostPolicy {
  /** Host names (lower case, IPv6 without brackets) accepted with the local port. */
  names: ReadonlySet<string>;
  /** `name` or `name:port` entries of ui.hosts: accepted with any port (a proxy's public name). */
  extra: ReadonlySet<string>;
}

export type Verdict = { ok: true } | { ok: false; status: 400 | 403 | 421; reason: string };

const WILDCARD = new Set(['0.0.0.0', '::', '']);

function bare(host: string): string {
  return host.replace(/^\[|\]$/g, '').toLowerCase();
}

/** The names a console listening on `listenHost` answers to. */
export function hostPolicy(listenHost: string, extra: readonly string[] = []): HostPolicy {
  const names = new Set(['localhost', '127.0.0.1', '::1', bare(listenHost)]);
  if (WILDCARD.has(bare(listenHost))) {
    // Listening on every address: the machine's own addresses and name are ours too.
    names.add(hostname().toLowerCase());
    for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) names.add(bare(a.address.split('%')[0]!));
  }
  names.delete('');
  return { names, extra: new Set(extra.map((h) => h.toLowerCase())) };
}

/** `host[:port]` split; IPv6 literals in brackets. Undefined when it is no host at all. */
export function splitHost(value: string): { name: string; port: number | undefined } | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(value);
  if (!m) return undefined;
  return { name: bare(m[1]!), port: m[2] === undefined ? undefined : Number(m[2]) };
}

function hostAllowed(value: string, policy: HostPolicy, localPort: number | undefined, tls: boolean): boolean {
  const lower = value.toLowerCase();
  if (policy.extra.has(lower)) return true;
  const h = splitHost(value);
  if (!h) return false;
  if (policy.extra.has(h.name) || policy.extra.has(`[${h.name}]`)) return true;
  if (!policy.names.has(h.name)) return false;
  const port = h.port ?? (tls ? 443 : 80);
  return localPort === undefined || port === localPort;
}

/**
 * Judges one request: its Host must be ours (421 otherwise, the status for "not this server"), an
 * Origin must be the request's own (403), and cross-site fetch metadata allows only navigations.
 */
export function judgeRequest(req: IncomingMessage, policy: HostPolicy, opts: { tls: boolean; browserChecksOnly?: boolean }): Verdict {
  const host = req.headers.host;
  if (!opts.browserChecksOnly) {
    if (typeof host !== 'string' || host.trim() === '') return { ok: false, status: 400, reason: 'no Host header' };
    if (!hostAllowed(host.trim(), policy, req.socket.localPort, opts.tls)) return { ok: false, status: 421, reason: `Host ${JSON.stringify(host.slice(0, 100))} is not this console's` };
  }
  const origin = req.headers.origin;
  const site = req.headers['sec-fetch-site'];
  // Our own pages send `Origin: null` on a form POST (they carry Referrer-Policy: no-referrer);
  // the browser's fetch metadata still says whether the request came from this origin.
  const ownNullOrigin = origin === 'null' && site === 'same-origin';
  if (typeof origin === 'string' && !ownNullOrigin) {
    let ok = false;
    try {
      const o = new URL(origin);
      ok = (o.protocol === 'http:' || o.protocol === 'https:') && (o.host.toLowerCase() === String(host ?? '').trim().toLowerCase() || policy.extra.has(o.host.toLowerCase()) || policy.extra.has(o.hostname.toLowerCase()));
    } catch {
      ok = false;
    }
    if (!ok) return { ok: false, status: 403, reason: `a request from another origin (${JSON.stringify(origin.slice(0, 100))})` };
  }
  if (site === 'cross-site' || site === 'same-site') {
    const navigation = req.headers['sec-fetch-mode'] === 'navigate' && (req.method === 'GET' || req.method === 'HEAD') && (req.headers['sec-fetch-dest'] ?? 'document') === 'document';
    if (!navigation) return { ok: false, status: 403, reason: `a ${site} request that is not a navigation` };
  }
  return { ok: true };
}

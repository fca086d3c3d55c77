// GET /healthz and GET /metrics on daemon.listen, with node:http, and the web console under /ui/
// when the daemon mounts it (src/ui/console.ts); nothing else is served.
// Handlers read state kept by the daemon (the metrics render is asynchronous only because
// prom-client's is), so a scrape never touches the service or waits for a pass.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { WbsyncError } from '../domain/errors.js';
import { hostPolicy, judgeRequest, type HostPolicy } from '../ui/request-guard.js';
import type { TlsMaterial } from '../ui/secrets.js';
import { isLoopback } from '../ui/security.js';

export interface HealthServerOptions {
  host: string;
  port: number;
  health(): { httpStatus: number; body: unknown };
  /** The exposition in the format the scraper's Accept header asks for. */
  metrics(accept: string | undefined): Promise<{ contentType: string; body: string }>;
  /** The web console: requests under `base` (e.g. /ui) go to `handle`. */
  ui?: { base: string; handle(req: IncomingMessage, res: ServerResponse): void };
  /** ui.tls.certFile / ui.tls.keyFile: the whole listener speaks HTTPS. */
  tls?: TlsMaterial;
}

export interface HealthServer {
  /** host:port actually bound (port 0 resolves to the chosen one). */
  address: string;
  port: number;
  close(): Promise<void>;
}

function reply(res: ServerResponse, status: number, type: string, body: string, head: boolean): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
  res.end(head ? undefined : body);
}

/**
 * /healthz and /metrics serve scrapers, which may sit on other hosts when daemon.listen is beyond
 * loopback: any Host is answered then. On loopback only loopback names are (a rebinding page cannot
 * read the figures), and a browser request from another site is refused either way.
 */
function admitScraper(req: IncomingMessage, res: ServerResponse, policy: HostPolicy, loopback: boolean, tls: boolean): boolean {
  const v = judgeRequest(req, policy, { tls, browserChecksOnly: !loopback });
  if (v.ok) return true;
  reply(res, v.status, 'text/plain; charset=utf-8', `refused: ${v.reason}\n`, req.method === 'HEAD');
  return false;
}

function handle(opts: HealthServerOptions, policy: HostPolicy, req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '/').split('?')[0];
  if (opts.ui && (path === opts.ui.base || path.startsWith(`${opts.ui.base}/`))) return opts.ui.handle(req, res);
  if (!admitScraper(req, res, policy, isLoopback(opts.host), opts.tls !== undefined)) return;
  const known = path === '/healthz' || path === '/metrics';
  if (!known) return reply(res, 404, 'text/plain; charset=utf-8', 'not found: try /healthz or /metrics\n', req.method === 'HEAD');
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    return reply(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n', false);
  }
  try {
    if (path === '/healthz') {
      const h = opts.health();
      return reply(res, h.httpStatus, 'application/json; charset=utf-8', `${JSON.stringify(h.body)}\n`, req.method === 'HEAD');
    }
  } catch (e) {
    return reply(res, 500, 'text/plain; charset=utf-8', `internal error: ${(e as Error).message}\n`, false);
  }
  opts.metrics(req.headers.accept).then(
    (m) => reply(res, 200, m.contentType, m.body, req.method === 'HEAD'),
    (e: unknown) => reply(res, 500, 'text/plain; charset=utf-8', `internal error: ${(e as Error).message}\n`, false),
  );
}

export function startHealthServer(opts: HealthServerOptions): Promise<HealthServer> {
  const policy = hostPolicy(opts.host);
  const handler = (req: IncomingMessage, res: ServerResponse): void => handle(opts, policy, req, res);
  const server = opts.tls ? createHttpsServer({ cert: opts.tls.cert, key: opts.tls.key, minVersion: 'TLSv1.2' }, handler) : createServer(handler);
  // Scrapers keep connections alive; do not let one idle socket hold a shutdown.
  server.keepAliveTimeout = 5_000;
  return new Promise((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => {
      reject(
        new WbsyncError('config', `daemon.listen: cannot listen on ${opts.host}:${opts.port} (${e.code ?? e.message})`, {
          hint: e.code === 'EADDRINUSE' ? 'another process uses that port; set daemon.listen to a free host:port' : 'set daemon.listen to a local address, e.g. 127.0.0.1:9464',
          cause: e,
        }),
      );
    });
    server.listen(opts.port, opts.host, () => {
      const a = server.address() as AddressInfo;
      const host = a.family === 'IPv6' ? `[${a.address}]` : a.address;
      resolve({
        address: `${host}:${a.port}`,
        port: a.port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

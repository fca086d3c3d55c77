// A pass-through HTTP proxy in front of the emulator for tests that need the service to answer
// something well-formed but wrong (e.g. an empty workspace list, as when the key lost access):
// `answer(path)` returns a body to serve instead, or null to forward. Binds 127.0.0.1, free port.

import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RewriteProxy {
  baseUrl: string;
  /** Set to rewrite answers; null forwards everything. */
  answer: ((method: string, path: string) => unknown | null) | null;
  close(): Promise<void>;
}

export async function startRewriteProxy(target: string): Promise<RewriteProxy> {
  const to = new URL(target);
  const proxy: RewriteProxy = { baseUrl: '', answer: null, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const forced = proxy.answer?.(req.method ?? 'GET', path) ?? null;
      if (forced !== null) {
        const body = JSON.stringify(forced);
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
        res.end(body);
        return;
      }
      const headers = { ...req.headers, host: to.host };
      const up = http.request({ hostname: to.hostname, port: to.port, path: req.url, method: req.method, headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on('error', () => res.destroy());
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  proxy.baseUrl = `http://127.0.0.1:${port}${to.pathname.replace(/\/$/, '')}`;
  proxy.close = () =>
    new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return proxy;
}

// Test support only (imported by src/api/*.test.ts, never by runtime code): a tiny node:http
// server on 127.0.0.1:0 whose handler each test writes, counting requests and peak in-flight.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type FakeHandler = (req: SeenRequest, res: ServerResponse) => void | Promise<void>;

export interface FakeServer {
  baseUrl: string;
  requests: SeenRequest[];
  /** Highest number of requests being handled at once. */
  maxInFlight: () => number;
  close: () => Promise<void>;
}

export async function startFakeServer(handler: FakeHandler): Promise<FakeServer> {
  const requests: SeenRequest[] = [];
  let inFlight = 0;
  let peak = 0;
  const server = createServer((req, res) => {
    inFlight += 1;
    peak = Math.max(peak, inFlight);
    let done = false;
    const finish = (): void => {
      if (!done) {
        done = true;
        inFlight -= 1;
      }
    };
    res.on('close', finish);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen: SeenRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(seen);
      Promise.resolve(handler(seen, res)).catch((err: unknown) => {
        res.statusCode = 599;
        res.end(String(err));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    maxInFlight: () => peak,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendHtml(res: ServerResponse, status: number, html = '<!DOCTYPE html><html><body><pre>Cannot GET /api/x</pre></body></html>'): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) });
  res.end(html);
}

/** Declares `declared` bytes, sends fewer, then drops the socket. */
export function sendTruncated(res: ServerResponse, text = '{"records":[{"_id":"a"'): void {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) + 100 });
  res.write(text);
  setTimeout(() => res.socket?.destroy(), 5);
}

/** Resets the connection without any answer. */
export function dropConnection(res: ServerResponse): void {
  res.socket?.destroy();
}

export const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

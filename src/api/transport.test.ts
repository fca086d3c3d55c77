// The bottom layer alone against small node:http fakes: one exchange through the Agent's dispatch,
// settled once whatever comes first — the answer, a transport error, the deadline, the caller's
// cancel, or a body over the cap — and every failure classified as the client's retries expect.

import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { StatsRecorder } from './stats.js';
import { caught } from './testing/caught.js';
import { sendJson, sendTruncated, startFakeServer, type FakeHandler, type FakeServer } from './testing/fake-server.js';
import { createUndiciTransport, type Transport, type TransportOptions } from './transport.js';

const KEY = `crm_${'fedcba9876543210'.repeat(4)}`;

let servers: FakeServer[] = [];
let transports: Transport[] = [];
/** Answers a handler left hanging, so the fake server can close. */
let hanging: ServerResponse[] = [];

/** Leaves the answer hanging (closed after the test); `closed()` says whether the client hung up. */
function hold(res: ServerResponse): () => boolean {
  hanging.push(res);
  let closed = false;
  res.socket?.on('close', () => (closed = true));
  return () => closed;
}
afterEach(async () => {
  for (const res of hanging) res.destroy();
  await Promise.all(transports.map((t) => t.close()));
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  transports = [];
  hanging = [];
});

async function fake(handler: FakeHandler, opts: Partial<TransportOptions> = {}): Promise<{ server: FakeServer; transport: Transport; stats: StatsRecorder }> {
  const server = await startFakeServer(handler);
  const stats = new StatsRecorder();
  const transport = createUndiciTransport({ baseUrl: server.baseUrl, apiKey: KEY, timeoutMs: 2000, maxBodyBytes: 1 << 20, stats, connections: 4, ...opts });
  servers.push(server);
  transports.push(transport);
  return { server, transport, stats };
}

const get = { method: 'GET', template: '/records/{collectionId}', params: { collectionId: 'c1' } } as const;

describe('one exchange', () => {
  it('sends method, path, query, key and JSON body, and returns status, type and text', async () => {
    const { server, transport, stats } = await fake((_req, res) => sendJson(res, 201, { ok: 'é' }));
    const res = await transport.send({ method: 'POST', template: '/records/{collectionId}', params: { collectionId: 'c1' }, query: { limit: 5, skip: undefined, q: 'a b&c' }, body: { name: 'Row' } });
    expect(res).toMatchObject({ status: 201, text: '{"ok":"é"}', endpoint: 'POST /records/{collectionId}' });
    expect(res.contentType).toMatch(/application\/json/);
    expect(server.requests[0]).toMatchObject({ method: 'POST', url: '/api/records/c1?limit=5&q=a+b%26c', body: '{"name":"Row"}' });
    expect(server.requests[0]!.headers['x-api-key']).toBe(KEY);
    expect(server.requests[0]!.headers['content-type']).toBe('application/json');
    expect(stats.snapshot()).toMatchObject({ requests: 1, byClass: { '2xx': 1 } });
  });

  it('hands a redirect back with where it pointed, never following it', async () => {
    const { server, transport } = await fake((_req, res) => {
      res.writeHead(302, { location: 'http://elsewhere.example/login', 'content-length': 0 });
      res.end();
    });
    const res = await transport.send(get);
    expect(res).toMatchObject({ status: 302, location: 'http://elsewhere.example/login', text: '' });
    expect(server.requests).toHaveLength(1);
  });

  it('a body that stalls mid-way fails at the deadline as a timeout, and the socket is closed', async () => {
    let closed = (): boolean => false;
    const { transport, stats } = await fake(
      (_req, res) => {
        closed = hold(res);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 });
        res.write('{"records":[');
      },
      { timeoutMs: 300 },
    );
    const t0 = performance.now();
    const err = await caught(transport.send(get));
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(err.code).toBe('unreachable');
    expect(err.details).toMatchObject({ failure: 'timeout', requestSent: true });
    expect(err.message).toMatch(/no complete answer within 300 ms/);
    expect(stats.snapshot().byClass).toEqual({ network: 1 });
    await expect.poll(() => closed(), { timeout: 2000 }).toBe(true);
  });

  it('a request still queued for a connection when its deadline passes fails then, not later', async () => {
    const { server, transport } = await fake((_req, res) => void hanging.push(res), { timeoutMs: 300, connections: 1 });
    const t0 = performance.now();
    const [a, b] = await Promise.all([caught(transport.send(get)), caught(transport.send(get))]);
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(a.details).toMatchObject({ failure: 'timeout' });
    expect(b.details).toMatchObject({ failure: 'timeout' });
    // the second never reached the server: it waited behind the first on the only connection
    expect(server.requests).toHaveLength(1);
  });

  it("the caller's cancel ends an exchange in flight at once, as cancelled", async () => {
    let closed = (): boolean => false;
    const { transport } = await fake((_req, res) => void (closed = hold(res)));
    const cancel = new AbortController();
    const pending = caught(transport.send({ ...get, signal: cancel.signal }));
    setTimeout(() => cancel.abort(), 50);
    const t0 = performance.now();
    const err = await pending;
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(err.details).toMatchObject({ cancelled: true });
    await expect.poll(() => closed(), { timeout: 2000 }).toBe(true);
  });

  it('a signal already aborted sends nothing', async () => {
    const { server, transport } = await fake((_req, res) => sendJson(res, 200, {}));
    const cancel = new AbortController();
    cancel.abort();
    expect((await caught(transport.send({ ...get, signal: cancel.signal }))).details).toMatchObject({ cancelled: true });
    expect(server.requests).toHaveLength(0);
  });

  it('a body cut short of its Content-Length is truncated (the request was sent)', async () => {
    const { transport } = await fake((_req, res) => sendTruncated(res));
    const err = await caught(transport.send(get));
    expect(err.details).toMatchObject({ failure: 'truncated', requestSent: true });
  });

  it('a connection dropped before any answer is a reset or network failure, never a timeout', async () => {
    const { transport } = await fake((_req, res) => void res.socket?.destroy());
    const err = await caught(transport.send(get));
    expect(['reset', 'network']).toContain(err.details?.['failure']);
  });

  it('nothing listening is refused (the request was never sent)', async () => {
    const server = await startFakeServer((_req, res) => sendJson(res, 200, {}));
    await server.close();
    const transport = createUndiciTransport({ baseUrl: server.baseUrl, apiKey: KEY, timeoutMs: 2000, maxBodyBytes: 1024, stats: new StatsRecorder(), connections: 1 });
    transports.push(transport);
    const err = await caught(transport.send(get));
    expect(err.details).toMatchObject({ failure: 'refused', requestSent: false });
  });

  it('a body over the cap is counted as the answer it was, and the exchange aborted', async () => {
    let closed = (): boolean => false;
    const { transport, stats } = await fake(
      (_req, res) => {
        closed = hold(res);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('x'.repeat(600));
        res.write('x'.repeat(600));
      },
      { maxBodyBytes: 1024 },
    );
    const err = await caught(transport.send(get));
    expect(err.details).toMatchObject({ failure: 'too_large' });
    expect(stats.snapshot().byClass).toEqual({ '2xx': 1 });
    await expect.poll(() => closed(), { timeout: 2000 }).toBe(true);
  });
});

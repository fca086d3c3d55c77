// The whole client against small node:http fakes: faults, retries and their counting, 401
// triage, hostile and malformed bodies, the in-flight bound, and the key never leaking.

import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpClient, type HttpClientOptions } from './http-client.js';
import type { ServiceClient } from './port.js';
import {
  delay,
  dropConnection,
  sendHtml,
  sendJson,
  sendTruncated,
  startFakeServer,
  type FakeHandler,
  type FakeServer,
} from './testing/fake-server.js';
import { caught } from './testing/caught.js';

// built at run time: nothing shaped like a real key is committed
const KEY = `crm_${'0123456789abcdef'.repeat(4)}`;
const T = '2026-01-15T09:00:00.000Z';
const record = { _id: 'r1', name: 'Row', collectionName: 'c1', parentRecord: null, module: 'm1', workspace: 'w1', createdAt: T };

let servers: FakeServer[] = [];
let clients: ServiceClient[] = [];
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  clients = [];
});

async function fake(handler: FakeHandler, opts: Partial<HttpClientOptions> = {}): Promise<{ server: FakeServer; client: ServiceClient }> {
  const server = await startFakeServer(handler);
  const client = createHttpClient({ baseUrl: server.baseUrl, apiKey: KEY, retries: 3, backoffBaseMs: 1, backoffMaxMs: 5, timeoutMs: 2000, ...opts });
  servers.push(server);
  clients.push(client);
  return { server, client };
}

/** Health answers `db`; everything under /api runs `api`. */
function routed(api: FakeHandler, db: 'up' | 'down' = 'up'): FakeHandler {
  return (req, res) => {
    if (req.url === '/') {
      return db === 'up'
        ? sendJson(res, 200, { status: 'ok', service: 'wbs', database: 'connected', uptimeSeconds: 5, time: T })
        : sendJson(res, 503, { status: 'error', service: 'wbs', database: 'disconnected', time: T });
    }
    return api(req, res);
  };
}

/** Fails the first `n` API calls with `fail`, then answers a record list. */
function failFirst(n: number, fail: FakeHandler): FakeHandler {
  let count = 0;
  return routed((req, res) => {
    count += 1;
    if (count <= n) return fail(req, res);
    return sendJson(res, 200, { records: [record] });
  });
}

describe('transport basics', () => {
  it('sends the key once as x-api-key under /api, and health without it at /', async () => {
    const { server, client } = await fake(routed((_req, res) => sendJson(res, 200, { records: [] })));
    await client.listRecords('c1');
    const health = await client.health();
    expect(health).toMatchObject({ databaseUp: true, status: 200 });
    const [api, root] = server.requests;
    expect(api.url).toBe('/api/records/c1');
    expect(api.headers['x-api-key']).toBe(KEY);
    expect(api.headers['authorization']).toBeUndefined();
    expect(root.url).toBe('/');
    expect(root.headers['x-api-key']).toBeUndefined();
  });

  it('keeps a path prefix of baseUrl', async () => {
    const server = await startFakeServer((_req, res) => sendJson(res, 200, { records: [] }));
    servers.push(server);
    const client = createHttpClient({ baseUrl: `${server.baseUrl}/board/`, apiKey: KEY });
    clients.push(client);
    await client.listRecords('c1');
    expect(server.requests[0].url).toBe('/board/api/records/c1');
  });

  it('health reports a down database (503) without throwing', async () => {
    const { client } = await fake(routed(() => undefined, 'down'));
    expect(await client.health()).toMatchObject({ databaseUp: false, status: 503 });
  });
});

describe('retries over the wire', () => {
  it.each([
    ['500', (_q: unknown, res: Parameters<FakeHandler>[1]) => sendJson(res, 500, { message: 'boom' })],
    ['503', (_q: unknown, res: Parameters<FakeHandler>[1]) => sendJson(res, 503, { message: 'Database unavailable' })],
    ['reset', (_q: unknown, res: Parameters<FakeHandler>[1]) => dropConnection(res)],
    ['truncated body', (_q: unknown, res: Parameters<FakeHandler>[1]) => sendTruncated(res)],
  ])('a GET survives two %s answers and counts them', async (_name, fail) => {
    const { client } = await fake(failFirst(2, fail as FakeHandler));
    const rows = await client.listRecords('c1');
    expect(rows).toHaveLength(1);
    const stats = client.stats();
    expect(stats.requests).toBe(3);
    expect(stats.retries).toBe(2);
    expect(stats.byClass['2xx']).toBe(1);
  });

  it('a timeout is retried', async () => {
    const { client } = await fake(failFirst(1, () => undefined /* never answers */), { timeoutMs: 100 });
    expect(await client.listRecords('c1')).toHaveLength(1);
    expect(client.stats()).toMatchObject({ requests: 2, retries: 1, byClass: { network: 1, '2xx': 1 } });
  });

  it('counts status classes and gives up with unreachable after `retries`', async () => {
    const { client } = await fake(routed((_req, res) => sendJson(res, 503, { message: 'Database unavailable' })), { retries: 2 });
    const err = await caught(client.listRecords('c1'));
    expect(err.code).toBe('unreachable');
    expect(err.endpoint).toBe('GET /records/{collectionId}');
    expect(err.message).toMatch(/Database unavailable/);
    expect(client.stats()).toMatchObject({ requests: 3, retries: 2, byClass: { '5xx': 3 } });
  });

  it('connection refused after retries is unreachable', async () => {
    const server = await startFakeServer(() => undefined);
    await server.close();
    const client = createHttpClient({ baseUrl: server.baseUrl, apiKey: KEY, retries: 1, backoffBaseMs: 1, backoffMaxMs: 2 });
    clients.push(client);
    const err = await caught(client.listWorkspaces());
    expect(err.code).toBe('unreachable');
    expect(err.message).toMatch(/cannot connect/);
    expect(client.stats()).toMatchObject({ requests: 2, retries: 1, byClass: { network: 2 } });
  });

  it.each([
    ['500', (_q: unknown, res: Parameters<FakeHandler>[1]) => sendJson(res, 500, { message: 'E11000' })],
    ['reset', (_q: unknown, res: Parameters<FakeHandler>[1]) => dropConnection(res)],
    ['timeout', () => undefined],
    ['truncated body', (_q: unknown, res: Parameters<FakeHandler>[1]) => sendTruncated(res, '{"record":{"_id":"r1"')],
  ])('a POST is never resent after a %s: outcomeUnknown', async (_name, fail) => {
    const { server, client } = await fake(failFirst(5, fail as FakeHandler), { timeoutMs: 100 });
    const err = await caught(client.createRecord('c1', { name: 'x' }));
    expect(err.retryable).toBe(false);
    expect(err.details).toMatchObject({ outcomeUnknown: true });
    expect(err.message).toMatch(/^POST \/records\/\{collectionId\}/);
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(client.stats().retries).toBe(0);
  });
});

describe('401 triage', () => {
  it('database up: one short retry, then auth with a hint', async () => {
    const { server, client } = await fake(routed((_req, res) => sendJson(res, 401, { message: 'Invalid API key' })));
    const err = await caught(client.listWorkspaces());
    expect(err.code).toBe('auth');
    expect(err.status).toBe(401);
    expect(err.message).toMatch(/refused the API key \(missing, invalid or rotated\)/);
    expect(err.hint).toMatch(/WBSYNC_API_KEY/);
    expect(server.requests.filter((r) => r.url.startsWith('/api'))).toHaveLength(2);
  });

  it('database down: retried as an outage, then unreachable saying the database is down', async () => {
    const { server, client } = await fake(routed((_req, res) => sendJson(res, 401, { message: 'Invalid token' }), 'down'), { retries: 2 });
    const err = await caught(client.listWorkspaces());
    expect(err.code).toBe('unreachable');
    expect(err.message).toMatch(/database is down/);
    expect(server.requests.filter((r) => r.url.startsWith('/api'))).toHaveLength(3);
    expect(client.stats().retries).toBe(2);
  });
});

describe('error bodies', () => {
  it('an HTML page is bad_response naming the endpoint', async () => {
    const { client } = await fake(routed((_req, res) => sendHtml(res, 200)));
    const err = await caught(client.listRecords('c1'));
    expect(err.code).toBe('bad_response');
    expect(err.message).toMatch(/^GET \/records\/\{collectionId\}: expected JSON, got an HTML page/);
  });

  it('an HTML 404 is not_found with a baseUrl hint', async () => {
    const { client } = await fake(routed((_req, res) => sendHtml(res, 404)));
    const err = await caught(client.listRecords('c1'));
    expect(err.code).toBe('not_found');
    expect(err.hint).toMatch(/baseUrl/);
  });

  it('a schema failure names the field path', async () => {
    const { client } = await fake(routed((_req, res) => sendJson(res, 200, { records: [record, { ...record, name: 42 }] })));
    const err = await caught(client.listRecords('c1'));
    expect(err.code).toBe('bad_response');
    expect(err.message).toMatch(/GET \/records\/\{collectionId\}: .*records\[1\]\.name/);
  });

  it('a missing envelope names the list', async () => {
    const { client } = await fake(routed((_req, res) => sendJson(res, 200, { message: 'ok' })));
    expect((await caught(client.listCollections('m1'))).message).toMatch(/collections: /);
  });

  it.each([
    [400, { message: 'Invalid board id' }, 'not_found'],
    [404, { message: 'Board not found' }, 'not_found'],
    [403, { message: 'You do not have access to this board' }, 'forbidden'],
    [400, { message: 'Amendment message is required' }, 'http'],
  ])('%i %j -> %s with the service message', async (status, body, code) => {
    const { client } = await fake(routed((_req, res) => sendJson(res, status, body)));
    const err = await caught(client.listAmendments('r1'));
    expect(err.code).toBe(code);
    expect(err.status).toBe(status);
    expect(err.message).toContain(body.message);
    expect(err.retryable).toBe(false);
  });
});

describe('hostile bodies', () => {
  it('__proto__ / constructor / prototype keys pollute nothing and stay in raw', async () => {
    const hostile =
      '{"records":[{"_id":"r1","name":"Row","module":"m1","workspace":"w1",' +
      '"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"prototype":{"polluted":"yes"},' +
      '"graphData":{"__proto__":{"polluted":"yes"}}}],' +
      '"__proto__":{"polluted":"yes"}}';
    const refs = '{"references":{"__proto__":{"polluted":"yes"},"r1":{"__proto__":{"polluted":"yes"},"c1":{"display":"x"}}}}';
    const { client } = await fake(routed((req, res) => sendJson(res, 200, req.url.includes('references') ? refs : hostile)));
    const [row] = await client.listRecords('c1');
    const map = await client.getReferences('m1');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(row.raw)).toBe(Object.prototype);
    expect((row as unknown as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.hasOwn(row.raw, '__proto__')).toBe(true);
    expect(row.raw['constructor']).toEqual({ prototype: { polluted: 'yes' } });
    expect(row.name).toBe('Row');
    expect(Object.keys(map)).toEqual(['r1']);
    expect(Object.getPrototypeOf(map['r1'])).toBe(Object.prototype);
    expect(map['r1']['c1']).toEqual({ display: 'x' });
  });

  it('a body over the cap is refused and not retried', async () => {
    const big = JSON.stringify({ records: Array.from({ length: 200 }, (_, i) => ({ ...record, _id: `r${i}` })) });
    const { server, client } = await fake(routed((_req, res) => sendJson(res, 200, big)), { maxBodyBytes: 1024 });
    const err = await caught(client.listRecords('c1'));
    expect(err.code).toBe('bad_response');
    expect(err.message).toMatch(/larger than the 1024-byte cap/);
    expect(server.requests).toHaveLength(1);
  });

  it('a body over the cap without Content-Length is refused while streaming', async () => {
    const { client } = await fake(
      routed((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"records":[');
        for (let i = 0; i < 100; i++) res.write(`${JSON.stringify(record)},`);
        res.end(`${JSON.stringify(record)}]}`);
      }),
      { maxBodyBytes: 2048 },
    );
    expect((await caught(client.listRecords('c1'))).code).toBe('bad_response');
  });
});

describe('concurrency', () => {
  it('never has more than `concurrency` requests in flight at the server', async () => {
    const { server, client } = await fake(
      routed(async (_req, res) => {
        await delay(10);
        sendJson(res, 200, { records: [] });
      }),
      { concurrency: 3 },
    );
    await Promise.all(Array.from({ length: 15 }, (_, i) => client.listRecords(`c${i}`)));
    expect(server.maxInFlight()).toBe(3);
    expect(client.stats().requests).toBe(15);
  });

  it('takes every answer that has arrived off the wire before decoding any of them', async () => {
    // Two requests in flight; the server holds the first answer until the second request is in,
    // then writes both in one turn, so both are on the client's sockets together.
    const held: (() => void)[] = [];
    const events: string[] = [];
    const { client } = await fake(
      routed((req, res) => {
        held.push(() => sendJson(res, 200, { records: [{ ...record, _id: req.url.split('/').pop() ?? '' }] }));
        if (held.length === 2) for (const send of held.splice(0)) send();
      }),
      { concurrency: 2, onRequest: (t) => events.push(`answer ${t.route}`) },
    );
    await Promise.all(['c1', 'c2'].map(async (c) => events.push(`decoded ${(await client.listRecords(c))[0]?.id ?? '?'}`)));
    // Decoding the first at once would put it between the two answers.
    expect(events.slice(0, 2)).toEqual(['answer /records/{collectionId}', 'answer /records/{collectionId}']);
    expect(events.slice(2).sort()).toEqual(['decoded c1', 'decoded c2']);
  });
});

describe('the key never leaks', () => {
  it('not in messages, JSON, hints, details or causes of any failure', async () => {
    const echo: FakeHandler = (req, res) => sendJson(res, 500, { message: `bad key ${String(req.headers['x-api-key'])}` });
    const cases: [string, FakeHandler, Partial<HttpClientOptions>][] = [
      ['echoing 500', echo, {}],
      ['echoing 401', (req, res) => sendJson(res, 401, { message: `Invalid API key ${String(req.headers['x-api-key'])}` }), {}],
      ['html', (req, res) => sendHtml(res, 502, `<html>${String(req.headers['x-api-key'])}</html>`), {}],
      ['reset', (_req, res) => dropConnection(res), {}],
      ['timeout', () => undefined, { timeoutMs: 50 }],
      ['truncated', (_req, res) => sendTruncated(res), {}],
      ['cap', (_req, res) => sendJson(res, 200, { records: [record, record, record] }), { maxBodyBytes: 10 }],
    ];
    for (const [name, handler, opts] of cases) {
      const { client } = await fake(routed(handler), { retries: 1, ...opts });
      for (const call of [() => client.listRecords('c1'), () => client.createRecord('c1', { name: 'x' })]) {
        const err = await caught(call());
        const texts = [err.message, err.hint ?? '', String(err), JSON.stringify(err), JSON.stringify(err.details ?? {}), String(err.cause), JSON.stringify(err.cause ?? null), err.stack ?? ''];
        let c: unknown = err.cause;
        while (c instanceof Error) {
          texts.push(String(c), c.stack ?? '', JSON.stringify(c));
          c = c.cause;
        }
        for (const t of texts) expect(t, `${name}: ${t}`).not.toContain(KEY);
      }
    }
  });

  it('not in log lines of retries', async () => {
    let logged = '';
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        logged += chunk.toString();
        cb();
      },
    });
    const logger = pino({ level: 'debug' }, sink);
    const { client } = await fake(failFirst(2, (_req, res) => sendJson(res, 503, { message: 'down' })), { logger });
    await client.listRecords('c1');
    expect(logged).toMatch(/request retry/);
    expect(logged).not.toContain(KEY);
  });
});

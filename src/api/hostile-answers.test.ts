// What a hostile or misconfigured service (or anything in front of it) may answer, against small
// node:http fakes: ids shaped like shell commands, JSON under another content type, redirects, an
// over-cap body — each refused with an error that names the endpoint and says what to do.

import { afterEach, describe, expect, it } from 'vitest';
import { isServiceId } from '../domain/service-id.js';
import { createHttpClient } from './http-client.js';
import type { ServiceClient } from './port.js';
import { sendJson, startFakeServer, type FakeHandler, type FakeServer } from './testing/fake-server.js';
import { caught } from './testing/caught.js';

const KEY = `crm_${'0123456789abcdef'.repeat(4)}`;
const T = '2026-01-15T09:00:00.000Z';
const OID = '65a1b2c3d4e5f60718293a4b';
const record = { _id: OID, name: 'Row', collectionName: OID, parentRecord: null, module: OID, workspace: OID, createdAt: T };
const HOSTILE = 'x$(touch${IFS}/tmp/PWNED)';

let servers: FakeServer[] = [];
let clients: ServiceClient[] = [];
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  clients = [];
});

async function fake(api: FakeHandler, maxBodyBytes?: number): Promise<{ server: FakeServer; client: ServiceClient }> {
  const server = await startFakeServer((req, res) => (req.url === '/' ? sendJson(res, 200, { status: 'ok', database: 'connected' }) : api(req, res)));
  const client = createHttpClient({ baseUrl: server.baseUrl, apiKey: KEY, retries: 2, backoffBaseMs: 1, backoffMaxMs: 2, timeoutMs: 2000, ...(maxBodyBytes ? { maxBodyBytes } : {}) });
  servers.push(server);
  clients.push(client);
  return { server, client };
}

describe('ids from the service', () => {
  it('takes ObjectIds, UUIDs and short ids; refuses anything a shell, a path or HTML could read', () => {
    for (const ok of [OID, '0f8fad5b-d9cb-469f-a165-70867728950e', 'r1', 'col_2']) expect(isServiceId(ok), ok).toBe(true);
    for (const bad of [HOSTILE, '', '-rf', '_x', '../etc', 'a b', 'a;b', "a'b", 'a\nb', 'a'.repeat(65), 'ä1', 'x‮gpj.exe', 'a.b', 'a:b'])
      expect(isServiceId(bad), JSON.stringify(bad)).toBe(false);
  });

  it.each([
    ['an entity id', { records: [{ ...record, _id: HOSTILE }] }, /records\[0\]\._id/],
    ['a reference', { records: [{ ...record, module: HOSTILE }] }, /records\[0\]\.module/],
    ['a populated reference', { records: [{ ...record, parentRecord: { _id: HOSTILE, name: 'p' } }] }, /records\[0\]\.parentRecord/],
  ])('%s shaped like a command is refused, naming the endpoint and the field', async (_what, body, field) => {
    const { client } = await fake((_req, res) => sendJson(res, 200, body));
    const err = await caught(client.listRecords(OID));
    expect(err.code).toBe('bad_response');
    expect(err.message).toMatch(/^GET \/records\/\{collectionId\}: unexpected response shape at /);
    expect(err.message).toMatch(field);
    expect(err.message).toMatch(/expected an id of letters, digits/);
  });

  it('a module list naming a hostile module id is refused', async () => {
    const { client } = await fake((_req, res) => sendJson(res, 200, { modules: [{ _id: HOSTILE, name: 'Board', workspace: OID }] }));
    const err = await caught(client.listModules(OID));
    expect(err.code).toBe('bad_response');
    expect(err.message).toMatch(/modules\[0\]\._id: expected an id/);
  });
});

describe('answers that are not the service', () => {
  it('JSON under content-type image/png is refused, naming the type', async () => {
    const { client } = await fake((_req, res) => {
      const text = JSON.stringify({ records: [record] });
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
    const err = await caught(client.listRecords(OID));
    expect(err.code).toBe('bad_response');
    expect(err.message).toBe('GET /records/{collectionId}: expected a JSON answer, got content-type "image/png" (HTTP 200)');
  });

  it('JSON under application/json (with a charset) or a +json type is taken', async () => {
    for (const type of ['application/json; charset=utf-8', 'application/vnd.wbs+json']) {
      const { client } = await fake((_req, res) => {
        const text = JSON.stringify({ records: [record] });
        res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
        res.end(text);
      });
      expect(await client.listRecords(OID)).toHaveLength(1);
    }
  });

  it('a redirect is reported as one, with where it pointed, and never followed', async () => {
    const elsewhere = await startFakeServer((_req, res) => sendJson(res, 200, { records: [record] }));
    servers.push(elsewhere);
    const { client } = await fake((_req, res) => {
      res.writeHead(302, { location: `${elsewhere.baseUrl}/api/records/x`, 'content-length': 0 });
      res.end();
    });
    const err = await caught(client.listRecords(OID));
    expect(err.code).toBe('http');
    expect(err.message).toBe(`GET /records/{collectionId}: the service answered with a redirect (HTTP 302) to "${elsewhere.baseUrl}/api/records/x"; wbsync does not follow redirects`);
    expect(err.hint).toMatch(/baseUrl/);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('the over-cap hint names no config key that does not exist', async () => {
    const { client } = await fake((_req, res) => sendJson(res, 200, { records: Array.from({ length: 50 }, () => record) }), 512);
    const err = await caught(client.listRecords(OID));
    expect(err.message).toMatch(/larger than the 512-byte cap/);
    expect(err.hint).not.toMatch(/maxBodyBytes/);
    expect(err.hint).toMatch(/baseUrl/);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from './index.js';

let emu: RunningEmulator;
let ws = '';
let sales = '';

async function call(method: string, path: string, body?: unknown, key = emu.apiKey): Promise<{ status: number; json: any }> {
  const res = await fetch(`${emu.baseUrl}/api${path}`, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

beforeAll(async () => {
  emu = await startEmulator({ seed: 'demo', dialect: 'spec' });
  ws = (await call('GET', '/workspaces')).json.workspaces[0].workspace._id;
  sales = (await call('GET', `/modules/${ws}`)).json.modules.find((m: { name: string }) => m.name === 'Sales Pipeline')._id;
});
afterAll(async () => emu.stop());

describe('emulator over HTTP, spec dialect', () => {
  it('should answer the health check outside /api', async () => {
    const res = await fetch(emu.baseUrl + '/');
    expect(res.status).toBe(200);
    emu.faults.setDatabaseDown(true);
    expect((await fetch(emu.baseUrl + '/')).status).toBe(503);
    expect((await call('GET', '/workspaces')).status).toBe(503);
    emu.faults.setDatabaseDown(false);
  });

  it('should authenticate by key, by bearer token and refuse the rest', async () => {
    expect((await call('GET', '/workspaces', undefined, 'wrong')).status).toBe(401);
    const bearer = await fetch(`${emu.baseUrl}/api/workspaces`, { headers: { authorization: `Bearer ${emu.users[0]!.sessionToken}` } });
    expect(bearer.status).toBe(200);
    expect((await call('GET', `/modules/${ws}`, undefined, emu.users[2]!.apiKey)).status).toBe(403);
  });

  it('should hide the private board from a member and refuse direct access', async () => {
    const mods = (await call('GET', `/modules/${ws}`, undefined, emu.users[1]!.apiKey)).json.modules;
    expect(mods.map((m: { name: string }) => m.name)).not.toContain('Leadership');
    const leadership = (await call('GET', `/modules/${ws}`)).json.modules.find((m: { name: string }) => m.name === 'Leadership')._id;
    expect((await call('GET', `/collections/${leadership}`, undefined, emu.users[1]!.apiKey)).status).toBe(403);
  });

  it('should create bare collections and wrapped records, and 404 unknown ids', async () => {
    const coll = await call('POST', `/collections/${sales}`, { name: 'Lost' });
    expect(coll.status).toBe(201);
    expect(coll.json.name).toBe('Lost');
    expect(coll.json.position).toBe(4);
    const rec = await call('POST', `/records/${coll.json._id}`, { name: 'Acme' });
    expect(rec.json.record.collectionName).toBe(coll.json._id);
    expect((await call('GET', '/records/ffffffffffffffffffffffff')).status).toBe(404);
    expect((await call('POST', `/records/${coll.json._id}`, {})).status).toBe(400);
    const del = await call('DELETE', `/collections/${coll.json._id}`);
    expect(del.status).toBe(200);
    expect((await call('PUT', `/records/${rec.json.record._id}`, { name: 'x' })).status).toBe(404);
  });

  it('should rate-limit key rotation with nextAllowedAt', async () => {
    const first = await call('POST', '/api-key/generate', undefined, emu.users[1]!.apiKey);
    expect(first.status).toBe(200);
    const second = await call('POST', '/api-key/generate', undefined, first.json.apiKey);
    expect(second.status).toBe(429);
    expect(second.json.nextAllowedAt).toBeTruthy();
  });

  it('should log route names as the spec writes them', async () => {
    emu.requestLog.clear();
    await call('GET', `/columns/${sales}?scope=subrecord`);
    await call('GET', '/nothing/here');
    expect(emu.requestLog.counts()).toEqual({ 'GET /columns/{moduleId}': 1, UNMATCHED: 1 });
  });

  it('should survive hostile input', async () => {
    const res = await fetch(`${emu.baseUrl}/api/collections/${sales}`, {
      method: 'POST',
      headers: { 'x-api-key': emu.apiKey, 'content-type': 'application/json' },
      body: '{"name": ',
    });
    expect(res.status).toBe(400);
    expect((await call('POST', `/collections/${sales}`, { name: { __proto__: { x: 1 } } })).status).toBe(400);
    expect((await call('POST', `/collections/${sales}`, JSON.parse('{"__proto__": {"polluted": true}, "name": "ok"}'))).status).toBe(201);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const huge = await fetch(`${emu.baseUrl}/api/collections/${sales}`, {
      method: 'POST',
      headers: { 'x-api-key': emu.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }),
    }).catch(() => null);
    expect(huge === null || huge.status === 413).toBe(true);
    expect((await call('GET', '/workspaces')).status).toBe(200);
  });

  it('should inject scripted faults on the Nth matching request', async () => {
    emu.faults.add({ route: 'GET /workspaces', nth: 2, status: 502 });
    expect((await call('GET', '/workspaces')).status).toBe(200);
    expect((await call('GET', '/workspaces')).status).toBe(502);
    expect((await call('GET', '/workspaces')).status).toBe(200);
    emu.faults.add({ route: 'GET /workspaces', mode: 'truncate' });
    await expect(fetch(`${emu.baseUrl}/api/workspaces`, { headers: { 'x-api-key': emu.apiKey } }).then((r) => r.text())).rejects.toThrow();
    emu.faults.add({ route: 'GET /workspaces', mode: 'drop' });
    await expect(fetch(`${emu.baseUrl}/api/workspaces`, { headers: { 'x-api-key': emu.apiKey } })).rejects.toThrow();
  });

  it('should notify a mentioned member', async () => {
    const coll = (await call('GET', `/collections/${sales}`)).json.collections[0]._id;
    const rec = (await call('GET', `/records/${coll}`)).json.records[0]._id;
    await call('POST', `/amendments/${rec}`, { message: 'ping', mentions: [emu.users[1]!.id] });
    const key = emu.users[1]!.apiKey;
    const n = await call('GET', '/notifications/unread-count', undefined, key);
    expect(n.json.count).toBeGreaterThan(0);
  });

  it('should revert a cell change and refuse a second revert', async () => {
    const feed = (await call('GET', `/activity/${ws}?action=cell_updated&limit=5`)).json;
    const row = feed.activities.find((a: { canRevert: boolean }) => a.canRevert);
    expect(row).toBeTruthy();
    expect((await call('POST', `/activity/${ws}/${row._id}/revert`)).status).toBe(200);
    expect((await call('POST', `/activity/${ws}/${row._id}/revert`)).status).toBe(400);
  });

  it('should notify a person assigned through a person cell', async () => {
    const cols = (await call('GET', `/columns/${sales}`)).json.columns;
    const owner = cols.find((c: { type: string }) => c.type === 'person');
    const coll = (await call('GET', `/collections/${sales}`)).json.collections[0]._id;
    const rec = (await call('POST', `/records/${coll}`, { name: 'Assign me' })).json.record;
    const before = (await call('GET', '/notifications?type=assignment', undefined, emu.users[1]!.apiKey)).json.notifications.length;
    const cell = await call('POST', '/record-values', {
      record: rec._id,
      column: owner._id,
      collectionName: coll,
      module: sales,
      workspace: ws,
      value: JSON.stringify([emu.users[1]!.id]),
    });
    expect(cell.status).toBe(201);
    expect(cell.json.column._id).toBe(owner._id);
    const after = (await call('GET', '/notifications?type=assignment', undefined, emu.users[1]!.apiKey)).json.notifications.length;
    expect(after).toBe(before + 1);
  });

  it('should reset to the seeded state', async () => {
    emu.reset();
    const again = (await call('GET', '/workspaces')).json.workspaces[0].workspace._id;
    expect(again).toBe(ws);
    expect(emu.requestLog.total()).toBe(1);
  });
});

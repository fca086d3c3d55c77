import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from './index.js';

let emu: RunningEmulator;
let ws = '';
let mod = '';

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; text: string; json: any; etag: string | null }> {
  const res = await fetch(`${emu.baseUrl}/api${path}`, {
    method,
    headers: { 'x-api-key': emu.apiKey, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: res.status, text, json, etag: res.headers.get('etag') };
}

beforeAll(async () => {
  emu = await startEmulator({ seed: 'none', dialect: 'observed', dbDownStallMs: 50 });
  ws = (await call('POST', '/workspaces', { name: 'Obs' })).json.workspace._id;
  mod = (await call('POST', `/modules/${ws}`, { name: 'Board' })).json.module._id;
});
afterAll(async () => emu.stop());

describe('emulator over HTTP, observed dialect', () => {
  it('should wrap creates, default positions to 0 and answer 400 for unknown child ids', async () => {
    const c = await call('POST', `/collections/${mod}`, { name: 'A' });
    expect(c.json.message).toBeTruthy();
    expect(c.json.collection.position).toBe(0);
    expect((await call('GET', '/records/ffffffffffffffffffffffff')).status).toBe(400);
    expect((await call('GET', '/collections/ffffffffffffffffffffffff')).json.message).toBe('Board not found');
    expect((await call('POST', `/collections/${mod}`, {})).status).toBe(500);
  });

  it('should answer unknown routes and bad JSON with HTML', async () => {
    const r = await call('GET', '/notifications');
    expect(r.status).toBe(404);
    expect(r.text).toContain('Cannot GET /api/notifications');
  });

  it('should soft-delete records and seed sub-record columns on the first sub-record', async () => {
    const coll = (await call('POST', `/collections/${mod}`, { name: 'B' })).json.collection._id;
    const rec = (await call('POST', `/records/${coll}`, { name: 'R' })).json.record._id;
    const sub = await call('POST', `/records/${rec}/sub-records`, { name: 'S' });
    expect(sub.status).toBe(201);
    const cols = (await call('GET', `/columns/${mod}?scope=subrecord`)).json.columns.map((c: { name: string }) => c.name);
    expect(cols).toEqual(['Owner', 'Status', 'Due date']);
    const del = await call('DELETE', `/records/${rec}`);
    expect(del.json.archivedSubRecords).toBe(1);
    expect((await call('DELETE', `/records/${rec}`)).status).toBe(200);
    expect((await call('GET', `/records/${coll}`)).json.records).toEqual([]);
    expect((await call('PUT', `/records/${rec}`, { isArchived: false })).json.record.isArchived).toBe(false);
  });

  it('should send weak ETags and 304 on a match, unless the request says Cache-Control: no-cache (Express)', async () => {
    const first = await call('GET', `/collections/${mod}`);
    expect(first.etag).toMatch(/^W\//);
    // fetch adds `Cache-Control: no-cache` to a conditional request unless one is set
    const again = await call('GET', `/collections/${mod}`, undefined, { 'if-none-match': first.etag!, 'cache-control': 'max-age=0' });
    expect(again.status).toBe(304);
    const fresh = await call('GET', `/collections/${mod}`, undefined, { 'if-none-match': first.etag!, 'cache-control': 'no-cache' });
    expect(fresh.status).toBe(200);
  });

  it('should run automations after the response', async () => {
    const coll = (await call('POST', `/collections/${mod}`, { name: 'Auto' })).json.collection._id;
    const auto = await call('POST', `/automations/${mod}`, {
      name: 'complete on create',
      trigger: { type: 'record_created' },
      conditions: [],
      match: 'all',
      actions: [{ type: 'set_completed', value: true }],
    });
    expect(auto.status).toBe(201);
    expect((await call('PUT', `/automations/${auto.json.automation._id}`, { name: 'partial' })).status).toBe(400);
    const rec = (await call('POST', `/records/${coll}`, { name: 'x' })).json.record;
    expect(rec.isCompleted).toBe(false);
    await emu.idle();
    const list = (await call('GET', `/records/${coll}`)).json.records;
    expect(list[0].isCompleted).toBe(true);
    const feed = (await call('GET', `/activity/${ws}?source=automation`)).json;
    expect(feed.activities.every((a: { automation: unknown }) => a.automation)).toBe(true);
  });

  it('should stall then fail while the database is down, with 401 for key callers', async () => {
    emu.faults.setDatabaseDown(true);
    expect((await fetch(emu.baseUrl + '/')).status).toBe(503);
    expect((await call('GET', '/workspaces')).status).toBe(401);
    const bearer = await fetch(`${emu.baseUrl}/api/workspaces`, { headers: { authorization: `Bearer ${emu.users[0]!.sessionToken}` } });
    expect(bearer.status).toBe(500);
    emu.faults.setDatabaseDown(false);
  });

  it('should give keys in the crm_ format and no rate limit', async () => {
    const k = await call('POST', '/api-key/generate');
    expect(k.json.apiKey).toMatch(/^crm_[0-9a-f]{64}$/);
    const k2 = await fetch(`${emu.baseUrl}/api/api-key/generate`, { method: 'POST', headers: { 'x-api-key': k.json.apiKey } });
    expect(k2.status).toBe(200);
  });
});

// Hostile answers: prototype keys in a body pollute nothing and are kept in `raw`; a truncated
// body is retried; an oversized body is refused with bad_response (one module, or the pass).

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClientOptions } from '../../src/api/http-client.js';
import type { ServiceClient } from '../../src/api/port.js';
import { isWbsyncError, type WbsyncError } from '../../src/domain/errors.js';
import type { Dialect } from '../../src/emulator/types.js';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/port.js';
import { runPass } from '../../src/sync/pass.js';
import { proxiedClient, startProxy, type RunningProxy } from '../helpers/fault-kit.js';
import { makeHarness, silentLogger, view, type Harness } from '../helpers/harness.js';

describe.each(['spec', 'observed'] as Dialect[])('hostile responses (%s dialect)', (dialect) => {
  let h: Harness;
  let proxy: RunningProxy;
  const clients: ServiceClient[] = [];
  const stores: Store[] = [];
  const clientVia = (o: Partial<HttpClientOptions> = {}): ServiceClient => {
    const c = proxiedClient(proxy, h.emu.apiKey, { retries: 3, ...o });
    clients.push(c);
    return c;
  };
  const freshStore = (name: string): Store => {
    const s = openStore(`${h.dir}/${name}.db`);
    stores.push(s);
    return s;
  };

  beforeAll(async () => {
    h = await makeHarness(dialect, { randomSeed: 23 });
    proxy = await startProxy(h.emu.baseUrl);
  });
  afterEach(() => {
    proxy.setRewrite(null);
    h.emu.faults.clear();
  });
  afterAll(async () => {
    for (const s of stores) s.close();
    for (const c of clients) await c.close();
    await proxy?.stop();
    await h?.close();
  });

  it('__proto__ / constructor keys pollute nothing and survive in raw', async () => {
    const dump = h.emu.dump();
    const rec = dump.records.find((r) => !r.isDeleted && !r.isArchived && !r.parentRecord) as { _id: string; name: string; collectionName: string };
    const evil = '"__proto__":{"polluted":"yes","isAdmin":true},"constructor":{"prototype":{"polluted":"yes"}},';
    proxy.setRewrite((req, body) => {
      if (req.method !== 'GET' || req.path !== `/api/records/${rec.collectionName}`) return undefined;
      const needle = `"_id":"${rec._id}"`;
      expect(body).toContain(needle);
      return body.replace(needle, `${evil}${needle}`);
    });
    const store = freshStore('proto');
    const r = await runPass({ client: clientVia(), store, logger: silentLogger }, { full: true });
    expect(proxy.rewritten.length).toBeGreaterThan(0);
    expect(r.status).toBe('complete');
    expect(r.failures).toEqual([]);

    const plain: Record<string, unknown> = {};
    expect(plain.polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();

    const row = view(store, 'records', 'WHERE id = ?', [rec._id])[0]!;
    expect(row.name).toBe(rec.name);
    const raw = JSON.parse(row.raw as string) as Record<string, unknown>;
    expect(Object.hasOwn(raw, '__proto__')).toBe(true);
    expect(raw['__proto__']).toEqual({ polluted: 'yes', isAdmin: true });
    expect(Object.getPrototypeOf(raw)).toBe(Object.prototype);
    expect(Object.hasOwn(raw, 'constructor')).toBe(true);
    expect(raw['constructor']).toEqual({ prototype: { polluted: 'yes' } });
    // the state reader hands the same raw back without pollution either
    const fromState = store.stateAt()!.record(rec._id)!;
    expect(Object.hasOwn(fromState.raw as object, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(store.verify().problems).toEqual([]);
  });

  it('a truncated body is retried and the pass completes', async () => {
    h.emu.faults.add({ route: 'GET /records/{collectionId}', nth: 2, times: 2, mode: 'truncate' });
    h.emu.faults.add({ route: 'GET /columns/{moduleId}', nth: 1, mode: 'truncate' });
    h.emu.requestLog.clear();
    const store = freshStore('truncate');
    const r = await runPass({ client: clientVia({ baseUrl: h.emu.baseUrl }), store, logger: silentLogger }, { full: true });
    expect(r.status).toBe('complete');
    expect(r.failures).toEqual([]);
    expect(r.retries).toBeGreaterThanOrEqual(3);
    // same content as the harness's own clean store after a clean pass
    const clean = freshStore('truncate-ref');
    await runPass({ client: clientVia({ baseUrl: h.emu.baseUrl }), store: clean, logger: silentLogger }, { full: true });
    for (const v of ['records', 'columns', 'cells']) expect(view(store, v, 'ORDER BY id'), v).toEqual(view(clean, v, 'ORDER BY id'));
  });

  it('an oversized body for one module fails that module with bad_response naming the cap', async () => {
    const mod = h.emu.dump().modules.find((m) => !m.isDeleted) as { _id: string; name: string };
    const cap = 256 * 1024;
    proxy.setRewrite((req, body) =>
      req.method === 'GET' && req.path === `/api/columns/${mod._id}` ? body.replace(/\}\s*$/, `,"padding":"${'p'.repeat(cap + 10)}"}`) : undefined,
    );
    const store = freshStore('oversized');
    const r = await runPass({ client: clientVia({ maxBodyBytes: cap }), store, logger: silentLogger }, { full: true });
    expect(proxy.rewritten.length).toBeGreaterThan(0);
    expect(r.status).toBe('complete');
    expect(r.failures).toEqual([
      {
        workspaceId: expect.any(String),
        moduleId: mod._id,
        moduleName: mod.name,
        reason: `GET /columns/{moduleId}: response body larger than the ${cap}-byte cap (HTTP 200)`,
      },
    ]);
    expect(view(store, 'modules', 'WHERE id = ?', [mod._id])).toEqual([]);
    expect(view(store, 'modules').length).toBeGreaterThan(0);
  });

  it('a cap smaller than the workspace listing fails the pass with bad_response', async () => {
    const store = freshStore('tiny-cap');
    let err: unknown;
    try {
      await runPass({ client: clientVia({ maxBodyBytes: 64 }), store, logger: silentLogger }, { full: true });
    } catch (e) {
      err = e;
    }
    expect(isWbsyncError(err), String(err)).toBe(true);
    expect((err as WbsyncError).code).toBe('bad_response');
    expect((err as WbsyncError).message).toBe('GET /workspaces: response body larger than the 64-byte cap');
    // the cap is no config key: the hint must not send people looking for one
    expect((err as WbsyncError).hint).not.toMatch(/maxBodyBytes/);
    expect((err as WbsyncError).hint).toMatch(/baseUrl/);
    expect(store.listSnapshots()).toEqual([]);
  });
});

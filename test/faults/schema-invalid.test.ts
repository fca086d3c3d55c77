// A schema-invalid answer for ONE module (served through a rewriting proxy) fails only that
// module, with a message naming the endpoint and the field; the other modules sync fully, the
// failed module's history is untouched, and the CLI exits 5.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceClient } from '../../src/api/port.js';
import { runCli } from '../../src/cli/run.js';
import type { Dialect } from '../../src/emulator/types.js';
import { runPass } from '../../src/sync/pass.js';
import { startProxiedHarness, type ProxiedHarness, type RunningProxy } from '../helpers/fault-kit.js';
import { api, silentLogger, view, type Harness } from '../helpers/harness.js';

const VERSIONED = ['module_versions', 'collection_versions', 'column_versions', 'record_versions', 'cell_versions', 'amendment_versions', 'automation_versions'];

function moduleHistory(h: Harness, moduleId: string): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const t of VERSIONED) {
    const cols = (h.store.db.prepare(`PRAGMA table_info(${t})`).all() as Array<{ name: string }>).map((c) => c.name);
    const where = t === 'module_versions' ? 'id = ?' : cols.includes('module_id') ? 'module_id = ?' : 'record_id IN (SELECT id FROM record_versions WHERE module_id = ?)';
    out[t] = h.store.db.prepare(`SELECT * FROM ${t} WHERE ${where} ORDER BY rowid`).all(moduleId);
  }
  return out;
}

describe.each(['spec', 'observed'] as Dialect[])('schema-invalid answer for one module (%s dialect)', (dialect) => {
  let h: Harness;
  let proxy: RunningProxy;
  let client: ServiceClient;
  let setup: ProxiedHarness | undefined;

  beforeAll(async () => {
    setup = await startProxiedHarness(dialect, 11);
    ({ h, proxy, client } = setup);
  });
  afterAll(async () => {
    await setup?.close();
  });

  it('fails only that module, names endpoint and field, keeps its history; CLI exits 5', async () => {
    const first = await h.sync({ full: true });
    expect(first.failures).toEqual([]);

    const dump = h.emu.dump();
    const live = dump.modules.filter((m) => !m.isDeleted) as Array<{ _id: string; name: string }>;
    const [target, other] = live as [{ _id: string; name: string }, { _id: string; name: string }];
    const recordIn = (mod: string) => dump.records.find((r) => r.module === mod && !r.isDeleted && !r.isArchived && !r.parentRecord)! as { _id: string };
    const tRec = recordIn(target._id);
    const oRec = recordIn(other._id);
    // a change in each: only the healthy module's change may land
    expect((await api(h.emu, 'PUT', `/records/${tRec._id}`, { name: 'changed in the broken module' })).status).toBe(200);
    expect((await api(h.emu, 'PUT', `/records/${oRec._id}`, { name: 'changed in a healthy module' })).status).toBe(200);
    await h.emu.idle();

    const historyBefore = moduleHistory(h, target._id);
    const viewBefore = view(h.store, 'records', 'WHERE module_id = ?', [target._id]);
    expect(viewBefore.length).toBeGreaterThan(0);

    proxy.setRewrite((req) => (req.method === 'GET' && req.path === `/api/collections/${target._id}` ? '{"collections":[{"_id":123}]}' : undefined));

    const r = await runPass({ client, store: h.store, logger: silentLogger }, { full: true });
    expect(proxy.rewritten.length).toBeGreaterThan(0);
    expect(r.status).toBe('complete');
    expect(r.failures).toHaveLength(1);
    const f = r.failures[0]!;
    expect(f.moduleId).toBe(target._id);
    expect(f.moduleName).toBe(target.name);
    expect(f.reason).toContain('GET /collections/{moduleId}');
    expect(f.reason).toContain('collections[0]._id');

    // the broken module: views and history exactly as before
    expect(moduleHistory(h, target._id)).toEqual(historyBefore);
    expect(view(h.store, 'records', 'WHERE module_id = ?', [target._id])).toEqual(viewBefore);
    expect(view(h.store, 'records', 'WHERE id = ?', [tRec._id])[0]?.name).not.toBe('changed in the broken module');
    // the others: fully synced, the change landed
    expect(view(h.store, 'records', 'WHERE id = ?', [oRec._id])[0]?.name).toBe('changed in a healthy module');
    const ref = h.openOther('reference');
    expect((await ref.sync({ full: true })).failures).toEqual([]);
    const healthy = (st: typeof h.store, v: string) =>
      st.db
        .prepare(v === 'cells' ? `SELECT * FROM cells WHERE record_id IN (SELECT id FROM records WHERE module_id != ?) ORDER BY id` : `SELECT * FROM ${v} WHERE module_id != ? ORDER BY id`)
        .all(target._id);
    for (const v of ['collections', 'columns', 'records', 'cells', 'amendments']) {
      const want = healthy(ref.store, v);
      expect(want.length, v).toBeGreaterThan(0);
      expect(healthy(h.store, v), v).toEqual(want);
    }
    expect(h.store.verify().problems).toEqual([]);

    // the CLI, in-process, against the proxy: exit 5 and the module named in the output
    let out = '';
    let err = '';
    const code = await runCli(['sync', '--full'], {
      stdout: { write: (t) => void (out += t) },
      stderr: { write: (t) => void (err += t) },
      env: { WBSYNC_BASE_URL: proxy.baseUrl, WBSYNC_API_KEY: h.emu.apiKey, WBSYNC_DB: h.dbPath, WBSYNC_LOG_LEVEL: 'silent' },
    });
    expect(code, err).toBe(5);
    expect(out).toContain('some parts failed (exit 5)');
    expect(out).toContain(`module ${target._id} (${target.name})`);
    expect(out).toMatch(/GET \/collections\/\{moduleId\}: unexpected response shape at collections\[0\]\._id/);
    expect(moduleHistory(h, target._id)).toEqual(historyBefore);

    // once the answer is good again, the module catches up
    proxy.setRewrite(null);
    const healed = await h.sync({ full: true });
    expect(healed.failures).toEqual([]);
    expect(view(h.store, 'records', 'WHERE id = ?', [tRec._id])[0]?.name).toBe('changed in the broken module');
  });
});

// Regressions of the restore fidelity issue, both dialects, on one board built to hold each hard
// state: siblings tied in position (columns of both scopes, collections, records, sub-records) and
// automations created one after another; sub-records left in their collection when their parent
// moved (one of them in a collection deleted since); a cell value the service refuses through the
// API (an automation wrote it). Then: the same order, the same placement, the refusal recorded and
// the rest restored; workspace automations active again after every outcome (done, failed, killed).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import type { Dialect } from '../../src/emulator/types.js';
import { idMapOf, restoreModule } from '../../src/restore/index.js';
import { dyingClient } from '../helpers/dying-client.js';
import { api, dumpOf, makeHarness, unwrap, type Harness } from '../helpers/harness.js';

const BAD_EMAIL = 'not an email';


interface Board {
  moduleId: string;
  ws: string;
  /** Names in the order the service lists them. */
  order: Record<string, string[]>;
  /** Sub-record name → the name of the collection it carries. */
  placement: Record<string, string>;
}

describe.each(['spec', 'observed'] as Dialect[])('restore regressions (%s dialect)', (dialect) => {
  let h: Harness;
  let ws: string;
  const post = async (path: string, body: unknown, key = 'x'): Promise<{ _id: string } & Record<string, any>> => {
    const r = await api(h.emu, 'POST', path, body);
    expect(r.status, `${path} ${JSON.stringify(r.body)}`).toBeLessThan(300);
    return unwrap(r.body, key);
  };
  const put = async (path: string, body: unknown): Promise<void> => {
    const r = await api(h.emu, 'PUT', path, body);
    expect(r.status, `${path} ${JSON.stringify(r.body)}`).toBeLessThan(300);
  };
  const names = async (path: string, key: string): Promise<string[]> => {
    const r = await api(h.emu, 'GET', path);
    expect(r.status, path).toBe(200);
    const list = (Array.isArray(r.body) ? r.body : r.body[key]) as Array<{ name: string }>;
    return list.map((x) => x.name);
  };

  /** Reads the order of every list and where each sub-record sits, by name. */
  async function readBoard(moduleId: string): Promise<Board> {
    const cols = (await api(h.emu, 'GET', `/collections/${moduleId}`)).body;
    const collections = (Array.isArray(cols) ? cols : cols.collections) as Array<{ _id: string; name: string }>;
    const order: Record<string, string[]> = {
      collections: collections.map((c) => c.name),
      columns: await names(`/columns/${moduleId}`, 'columns'),
      subColumns: await names(`/columns/${moduleId}?scope=subrecord`, 'columns'),
      automations: await names(`/automations/${moduleId}`, 'automations'),
    };
    const placement: Record<string, string> = {};
    const collectionName = new Map(collections.map((c) => [c._id, c.name]));
    for (const c of collections) {
      const recs = (await api(h.emu, 'GET', `/records/${c._id}`)).body;
      const list = (Array.isArray(recs) ? recs : recs.records) as Array<{ _id: string; name: string }>;
      order[`records of ${c.name}`] = list.map((r) => r.name);
      for (const r of list) {
        const subs = (await api(h.emu, 'GET', `/records/${r._id}/sub-records`)).body;
        const sl = (Array.isArray(subs) ? subs : subs.records) as Array<{ _id: string; name: string; collectionName: string }>;
        if (sl.length) order[`sub-records of ${r.name}`] = sl.map((s) => s.name);
        for (const s of sl) placement[s.name] = collectionName.get(s.collectionName) ?? `(gone ${s.collectionName === c._id ? 'parent' : 'other'})`;
      }
    }
    return { moduleId, ws, order, placement };
  }

  /** The hard board: returns it read back, with what the restore cannot bring back named. */
  async function buildBoard(name: string, badValue = true): Promise<Board & { goneSub: string }> {
    const mod = await post(`/modules/${ws}`, { name, visibility: 'private' }, 'module');
    const m = mod._id;
    // collections, columns of both scopes, created one after another, then tied at position 0
    const groups = [];
    for (const g of ['Gamma', 'Alpha', 'Echo', 'Bravo', 'Delta']) groups.push(await post(`/collections/${m}`, { name: g }, 'collection'));
    for (const g of groups) await put(`/collections/${g._id}`, { position: 0 });
    const columns = [];
    for (const c of ['Owner note', 'Effort', 'Zeta', 'Area', 'Mood']) columns.push(await post(`/columns/${m}`, { name: c, type: 'text' }, 'column'));
    const email = await post(`/columns/${m}`, { name: 'Contact', type: 'email' }, 'column');
    for (const c of [...columns, email]) await put(`/columns/${c._id}`, { position: 0 });
    const subColumns = [];
    for (const c of ['Step', 'Check', 'Who']) subColumns.push(await post(`/columns/${m}`, { name: c, type: 'text', scope: 'subrecord' }, 'column'));
    for (const c of subColumns) await put(`/columns/${c._id}`, { position: 0 });
    // records of one collection tied at position 7; sub-records tied at position 1
    const recs = [];
    for (const r of ['row-k', 'row-b', 'row-x', 'row-a', 'row-m']) recs.push(await post(`/records/${groups[0]._id}`, { name: r }, 'record'));
    for (const r of recs) await put(`/records/${r._id}`, { position: 7 });
    const subs = [];
    for (const s of ['sub-q', 'sub-c', 'sub-w', 'sub-e']) subs.push(await post(`/records/${recs[0]._id}/sub-records`, { name: s }, 'record'));
    for (const s of subs) await put(`/records/${s._id}`, { position: 1 });
    // a parent moved to another collection leaves its sub-records behind (Gamma); another parent's
    // old collection is deleted after it moved: its sub-record's collection is gone
    await put(`/records/${recs[0]._id}`, { collectionName: groups[1]._id });
    const lone = await post(`/records/${groups[4]._id}`, { name: 'row-lone' }, 'record');
    const goneSub = await post(`/records/${lone._id}/sub-records`, { name: 'sub-orphaned' }, 'record');
    await put(`/records/${lone._id}`, { collectionName: groups[2]._id });
    expect((await api(h.emu, 'DELETE', `/collections/${groups[4]._id}`)).status).toBe(200);
    // automations created one after another (inactive: they must not fire on the restore)
    for (const a of ['Notify', 'Archive', 'Cleanup']) {
      await post(`/automations/${m}`, { name: a, trigger: { type: 'record_completed' }, conditions: [], match: 'all', actions: [{ type: 'post_amendment', value: a }], isActive: false }, 'automation');
    }
    // a value the API refuses, written by an automation (which the service does not validate)
    if (badValue) await writeBadValue(m, email._id, recs[1]._id);
    // what must come back after the refused cell: notes and a grant
    await post(`/amendments/${recs[1]._id}`, { message: 'after the bad value' }, 'amendment');
    await put(`/module-access/${ws}/${h.emu.users[1].id}`, { moduleIds: [m] });
    await h.emu.idle();
    return { ...(await readBoard(m)), goneSub: goneSub._id };
  }

  async function writeBadValue(m: string, column: string, record: string): Promise<void> {
    const writer = await post(
      `/automations/${m}`,
      { name: 'Writer', trigger: { type: 'record_completed' }, conditions: [], match: 'all', actions: [{ type: 'set_column_value', column, value: BAD_EMAIL }] },
      'automation',
    );
    await put(`/records/${record}`, { isCompleted: true });
    await h.emu.idle();
    expect(dumpOf(h.emu).values.some((v) => v.record === record && v.value === BAD_EMAIL)).toBe(true);
    await put(`/automations/${writer._id}`, { isActive: false });
  }

  async function workspaceAutomationStates(): Promise<Record<string, boolean>> {
    return Object.fromEntries((await h.client.listWorkspaceAutomations(ws)).map((a) => [a.name, a.isActive]));
  }

  async function deleteAndSync(moduleId: string): Promise<void> {
    expect((await h.sync()).failures).toEqual([]);
    expect((await api(h.emu, 'DELETE', `/modules/${moduleId}`)).status).toBe(200);
    expect((await h.sync()).failures).toEqual([]);
  }

  beforeAll(async () => {
    h = await makeHarness(dialect);
    ws = (await h.client.listWorkspaces())[0].id;
    // an active workspace automation that --pause-automations must switch off and on again
    await post(`/automations/workspace/${ws}`, { name: 'Greeter', trigger: { type: 'record_created' }, conditions: [], match: 'all', actions: [{ type: 'post_amendment', value: 'hello' }] }, 'automation');
    expect((await h.sync({ full: true })).failures).toEqual([]);
  });
  afterAll(async () => {
    await h?.close();
  });

  async function restoreByCli(moduleId: string): Promise<{ code: number; r: { moduleId: string; runId: number; refused: number; notRestored: Array<Record<string, unknown>>; counts: Record<string, number> } }> {
    let out = '';
    const code = await runCli(['restore', 'module', moduleId, '--pause-automations', '--json', '--db', h.dbPath], {
      stdout: { write: (s) => void (out += s) },
      stderr: { write: () => undefined },
      env: { WBSYNC_BASE_URL: h.emu.baseUrl, WBSYNC_API_KEY: h.emu.apiKey, WBSYNC_LOG_LEVEL: 'silent' },
    });
    await h.emu.idle();
    return { code, r: JSON.parse(out) };
  }

  it('brings back the order people saw within position ties (columns of both scopes, collections, records, sub-records, automations)', async () => {
    const before = await buildBoard('Ties', false);
    await deleteAndSync(before.moduleId);
    const { code, r } = await restoreByCli(before.moduleId);
    expect(code).toBe(0);
    expect((await readBoard(r.moduleId)).order).toEqual(before.order);
  });

  it("puts sub-records back in the collection they carried when their parent moved, and says which it could not", async () => {
    const before = await buildBoard('Leftovers', false);
    expect(before.placement['sub-q']).toBe('Gamma');
    expect(before.placement['sub-orphaned']).toMatch(/gone/);
    await deleteAndSync(before.moduleId);
    const { r } = await restoreByCli(before.moduleId);
    const after = await readBoard(r.moduleId);
    // the orphaned sub-record cannot be placed: it goes with its parent, and the result says so
    expect(after.placement).toEqual({ ...before.placement, 'sub-orphaned': after.placement['sub-orphaned'] });
    expect(r.notRestored).toEqual([expect.objectContaining({ entity: 'subrecord', id: before.goneSub, reason: expect.stringMatching(/gone/) })]);
  });

  it('records a value the service refuses, restores everything after it, and exits 5', async () => {
    const before = await buildBoard('Refused value');
    const automations = await workspaceAutomationStates();
    expect(Object.values(automations).some((x) => x)).toBe(true);
    await deleteAndSync(before.moduleId);
    const { code, r } = await restoreByCli(before.moduleId);
    expect(code).toBe(5);
    expect(r.notRestored).toEqual(expect.arrayContaining([expect.objectContaining({ entity: 'cell', status: 400, value: BAD_EMAIL, reason: expect.stringMatching(/refused/) })]));
    expect(r.refused).toBe(1);
    // everything after the refusal came back: the note, the automations, the grant, the order
    expect((await readBoard(r.moduleId)).order).toEqual(before.order);
    const notes = (await api(h.emu, 'GET', `/amendments/${idMapOf(h.store.db, r.runId).get(dumpOf(h.emu).records.find((x) => x.name === 'row-b' && x.module === before.moduleId)?._id ?? '')}`)).body;
    expect(JSON.stringify(notes)).toContain('after the bad value');
    const access = await h.client.getModuleAccess(ws, h.emu.users[1].id);
    expect(access.find((a) => a.moduleId === r.moduleId)?.granted).toBe(true);
    expect(r.counts.automations).toBe(4);
    expect(await workspaceAutomationStates()).toEqual(automations);
  });

  it('keeps workspace automations as they were after a failed run, a killed run, and their resumes', async () => {
    const before = await buildBoard('Automations after every outcome', false);
    const automations = await workspaceAutomationStates();
    await deleteAndSync(before.moduleId);
    const opts = { moduleId: before.moduleId, attribution: '', settleMs: 1, pauseAutomations: true };

    // failed: the service keeps failing on notes (retries exhausted) — the run stops, resumably
    h.emu.faults.add({ method: 'POST', route: /^\/api\/amendments\//, status: 503, times: 1000 });
    await expect(restoreModule({ client: h.client, store: h.store }, opts)).rejects.toMatchObject({ code: 'unreachable' });
    h.emu.faults.clear();
    await h.emu.idle();
    expect(await workspaceAutomationStates()).toEqual(automations);

    // killed mid-way (nothing after the kill reaches the service, automations stay paused there)…
    await expect(restoreModule({ client: dyingClient(h.client, 3, 'before'), store: h.store }, opts)).rejects.toThrow(/killed/);
    expect(Object.values(await workspaceAutomationStates()).every((x) => !x)).toBe(true);
    // …and resumed: it re-activates what the journal says it paused, after pausing them again itself
    const done = await restoreModule({ client: h.client, store: h.store }, opts);
    await h.emu.idle();
    expect(done.resumed).toBe(true);
    expect(await workspaceAutomationStates()).toEqual(automations);
    expect(done.refused).toBe(0);
    expect((await readBoard(done.moduleId!)).order).toEqual(before.order);
  });
});

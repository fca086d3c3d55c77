// Refusals and dry runs write nothing (the request log holds only GETs); --pause-automations keeps
// the workspace's automations from firing on the restore's writes and leaves them active; grants come
// back; restore records un-archives in place or recreates.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { restoreModule, restoreRecords } from '../../src/restore/index.js';
import { api, makeClient, makeHarness, type Harness } from '../helpers/harness.js';

const ATTRIBUTION = 'Restored by wbsync — originally by {author} at {createdAt}.';

function onlyGets(h: Harness): string[] {
  return h.emu.requestLog.entries().filter((e) => e.method !== 'GET').map((e) => `${e.method} ${e.path}`);
}

describe.each(['spec', 'observed'] as Dialect[])('restore safety (%s dialect)', (dialect) => {
  let h: Harness;
  let snapshot: number;
  let ws: string;
  let modules: { id: string; name: string; visibility: string | null }[];
  beforeAll(async () => {
    h = await makeHarness(dialect);
    ws = (await h.client.listWorkspaces())[0].id;
    modules = await h.client.listModules(ws);
    // a grant to restore: the second user may open the private board
    const priv = modules.find((m) => m.visibility === 'private')!;
    expect((await api(h.emu, 'PUT', `/module-access/${ws}/${h.emu.users[1].id}`, { moduleIds: [priv.id] })).status).toBe(200);
    // the automation hazard: a workspace automation that writes on every record created
    const made = await api(h.emu, 'POST', `/automations/workspace/${ws}`, {
      name: 'Hazard',
      trigger: { type: 'record_created' },
      conditions: [],
      match: 'all',
      actions: [{ type: 'post_amendment', value: 'written by an automation' }],
    });
    expect(made.status).toBeLessThan(300);
    snapshot = (await h.sync({ full: true })).snapshot;
  });
  afterAll(async () => {
    await h?.close();
  });

  it('should refuse and not write if the module still exists', async () => {
    h.emu.requestLog.clear();
    await expect(restoreModule({ client: h.client, store: h.store }, { moduleId: modules[0].id, attribution: ATTRIBUTION })).rejects.toMatchObject({ code: 'restore_refused' });
    expect(onlyGets(h)).toEqual([]);
  });

  it('should refuse and not write if the snapshot does not hold the module, naming those that do', async () => {
    h.emu.requestLog.clear();
    await expect(restoreModule({ client: h.client, store: h.store }, { moduleId: 'ffffffffffffffffffffffff', attribution: ATTRIBUTION })).rejects.toMatchObject({ code: 'restore_refused' });
    const err = await restoreModule({ client: h.client, store: h.store }, { moduleId: modules[0].id, snapshotId: snapshot + 99, attribution: ATTRIBUTION }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'restore_refused', details: { snapshotsHolding: [snapshot] } });
    expect(onlyGets(h)).toEqual([]);
  });

  it('should refuse and not write if the key may not write the workspace (a plain member)', async () => {
    const target = modules.find((m) => m.visibility !== 'private')!;
    expect((await api(h.emu, 'DELETE', `/modules/${target.id}`)).status).toBe(200);
    const member = makeClient(h.emu, { apiKey: h.emu.users[1].apiKey });
    h.emu.requestLog.clear();
    await expect(restoreModule({ client: member, store: h.store }, { moduleId: target.id, attribution: ATTRIBUTION })).rejects.toMatchObject({ code: 'restore_refused' });
    expect(onlyGets(h)).toEqual([]);
    await member.close();
  });

  it('a dry run prints the plan and writes nothing', async () => {
    const target = modules.find((m) => m.visibility !== 'private')!;
    h.emu.requestLog.clear();
    const r = await restoreModule({ client: h.client, store: h.store }, { moduleId: target.id, attribution: ATTRIBUTION, dryRun: true, pauseAutomations: true });
    expect(r.moduleId).toBeNull();
    expect(r.plan!.phases.map((p) => p.name).slice(0, 3)).toEqual(['module', 'module settings', 'collections']);
    expect(r.counts.records).toBeGreaterThan(0);
    expect(onlyGets(h)).toEqual([]);
    const recs = await restoreRecords({ client: h.client, store: h.store }, { recordIds: [h.store.stateAt(snapshot)!.records(modules[1].id)[0].id], dryRun: true, attribution: ATTRIBUTION });
    expect(recs.dryRun).toBe(true);
    expect(onlyGets(h)).toEqual([]);
  });

  it('--pause-automations: no automation writes during the restore, the automation active afterwards', async () => {
    const target = modules.find((m) => m.visibility !== 'private')!;
    const before = new Set((await h.client.listActivity(ws, { source: 'automation', limit: 100 })).activities.map((a) => a.id));
    const r = await restoreModule({ client: h.client, store: h.store }, { moduleId: target.id, attribution: ATTRIBUTION, pauseAutomations: true, settleMs: 5 });
    await h.emu.idle();
    const after = (await h.client.listActivity(ws, { source: 'automation', limit: 100 })).activities.filter((a) => !before.has(a.id));
    expect(after).toEqual([]);
    expect(r.pausedAutomations.length).toBeGreaterThan(0);
    const hazard = (await h.client.listWorkspaceAutomations(ws)).find((a) => a.name === 'Hazard')!;
    expect(hazard.isActive).toBe(true);
    // control: the same restore without pausing does set the automation off
    const other = modules.find((m) => m.visibility !== 'private' && m.id !== target.id)!;
    expect((await api(h.emu, 'DELETE', `/modules/${other.id}`)).status).toBe(200);
    await restoreModule({ client: h.client, store: h.store }, { moduleId: other.id, attribution: ATTRIBUTION, settleMs: 5 });
    await h.emu.idle();
    const fired = (await h.client.listActivity(ws, { source: 'automation', limit: 100 })).activities.filter((a) => !before.has(a.id));
    expect(fired.length).toBeGreaterThan(0);
  });

  it('restores module-access grants into the member set (read-modify-write)', async () => {
    const priv = modules.find((m) => m.visibility === 'private')!;
    const grace = h.emu.users[1].id;
    expect((await api(h.emu, 'DELETE', `/modules/${priv.id}`)).status).toBe(200);
    const r = await restoreModule({ client: h.client, store: h.store }, { moduleId: priv.id, attribution: ATTRIBUTION, settleMs: 1 });
    expect(r.counts.grants).toBe(1);
    const access = await h.client.getModuleAccess(ws, grace);
    expect(access.find((a) => a.moduleId === r.moduleId)?.granted).toBe(true);
    // running the same command again does nothing twice
    h.emu.requestLog.clear();
    const again = await restoreModule({ client: h.client, store: h.store }, { moduleId: priv.id, attribution: ATTRIBUTION });
    expect(again).toMatchObject({ alreadyRestored: true, moduleId: r.moduleId });
    expect(onlyGets(h)).toEqual([]);
  });

  it('restore records: un-archives what the service still holds, recreates what it lost', async () => {
    const mod = (await h.client.listModules(ws)).find((m) => modules.some((x) => x.id === m.id))!;
    const state = h.store.stateAt(snapshot)!;
    const recs = state.records(mod.id).filter((r) => r.parentRecordId === null && !r.isArchived);
    const victim = recs[0];
    expect((await api(h.emu, 'DELETE', `/records/${victim.id}`)).status).toBe(200);
    const r = await restoreRecords({ client: h.client, store: h.store }, { recordIds: [victim.id], attribution: ATTRIBUTION });
    const expected = dialect === 'observed' ? 'unarchived' : 'recreated';
    expect(r.records[0].action).toBe(expected);
    const live = await h.client.listRecords(victim.collectionId!);
    const back = live.find((x) => x.id === r.records[0].newId)!;
    expect(back.name).toBe(victim.name);
    const cells = await h.client.listValues(back.id);
    expect(cells.map((c) => c.value).sort()).toEqual(state.cellsOfRecord(victim.id).filter((c) => c.value !== null).map((c) => c.value).sort());
  });
});

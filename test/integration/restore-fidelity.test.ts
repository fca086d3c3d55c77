// Every module of the demo seed, in both dialects: synced, deleted, restored from the snapshot,
// read back live and compared with the snapshot modulo ids — zero differences.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { diffModuleTrees, readGrantsLive, restoredIdMap, restoreModule, treeFromLive, treeFromState } from '../../src/restore/index.js';
import { readModuleLive } from '../../src/sync/live-module.js';
import { api, makeHarness, type Harness } from '../helpers/harness.js';

const ATTRIBUTION = 'Restored by wbsync — originally by {author} at {createdAt}.';

describe.each(['spec', 'observed'] as Dialect[])('restore module fidelity (%s dialect)', (dialect) => {
  let h: Harness;
  let snapshot: number;
  beforeAll(async () => {
    h = await makeHarness(dialect);
    const pass = await h.sync({ full: true });
    expect(pass.failures).toEqual([]);
    snapshot = pass.snapshot;
  });
  afterAll(async () => {
    await h?.close();
  });

  it('restores every module with zero differences modulo ids', async () => {
    const state = h.store.stateAt(snapshot)!;
    const modules = state.modules();
    expect(modules.length).toBeGreaterThan(1);
    const problems: string[] = [];
    for (const m of modules) {
      expect((await api(h.emu, 'DELETE', `/modules/${m.id}`)).status).toBe(200);
      const res = await restoreModule({ client: h.client, store: h.store }, { moduleId: m.id, attribution: ATTRIBUTION, settleMs: 5 });
      await h.emu.idle();
      expect(res.moduleId).toBeTruthy();
      const live = (await h.client.listModules(res.targetWorkspaceId)).find((x) => x.id === res.moduleId)!;
      const members = await h.client.listMembers(res.targetWorkspaceId);
      const grants = await readGrantsLive(h.client, res.targetWorkspaceId, members);
      const b = await treeFromLive(readModuleLive, h.client, live, null, grants);
      const a = treeFromState(state, m.id)!;
      const d = diffModuleTrees(a, b, { matchBy: 'shape', idMap: restoredIdMap(h.store.db, new Set((await h.client.listModules(res.targetWorkspaceId)).map((x) => x.id))), acrossRestore: true, attribution: ATTRIBUTION, bHidesArchived: true });
      for (const e of d.entries) problems.push(`${m.name}: ${e.entity} ${e.change} ${e.label} ${JSON.stringify(e.fields ?? [])}`);
      // the restored counts cover the snapshot's content
      expect(res.counts.records ?? 0).toBe(a.records.filter((r) => r.parentRecordId === null).length);
    }
    expect(problems).toEqual([]);
  });
});

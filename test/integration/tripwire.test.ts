// The tripwire's counts against real passes, both dialects: what a pass changed per module (records
// archived or deleted, cells changed or cleared per column, a deleted column, deleted amendments, a
// deleted module), read from the versions; a normal day stays under the thresholds.

import { afterEach, describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { evaluateTripwire, undoArgv, undoLine } from '../../src/tripwire/evaluate.js';
import { api, dumpOf, makeHarness, type Harness } from '../helpers/harness.js';
import { diffModuleTrees, treeFromState } from '../../src/restore/index.js';

const T = { recordsPercent: 20, minRecords: 3, cellsPercent: 30, minCells: 3, amendmentsPercent: 20, minAmendments: 2 };

describe.each(['spec', 'observed'] as Dialect[])('tripwire counts (%s dialect)', (dialect) => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function pass(): Promise<number> {
    h!.emu.clock.advance(1000);
    await h!.emu.idle();
    const r = await h!.sync();
    expect(r.failures).toEqual([]);
    return r.snapshot;
  }

  it('counts what a pass changed per module, and only mass changes trip it', async () => {
    h = await makeHarness(dialect);
    const s0 = (await h.sync()).snapshot;
    const d = dumpOf(h.emu);
    const mod = d.modules.find((m) => !m.isDeleted && d.records.filter((r) => r.module === m._id && !r.isDeleted && !r.isArchived && !r.parentRecord).length >= 6)!;
    const live = d.records.filter((r) => r.module === mod._id && !r.isDeleted && !r.isArchived && !r.parentRecord);

    // a normal day: one rename, one cell
    expect((await api(h.emu, 'PUT', `/records/${live[0]!._id}`, { name: 'a normal rename' })).status).toBe(200);
    const s1 = await pass();
    expect(evaluateTripwire(h.store.changeCounts(s0, s1), T, s0, s1)).toEqual([]);

    // half the records archived (deleted in the published service's sense: DELETE)
    const victims = live.slice(0, Math.ceil(live.length / 2));
    for (const r of victims) expect((await api(h.emu, 'DELETE', `/records/${r._id}`)).status).toBe(200);
    // and a column deleted with its cells
    const counts = new Map<string, number>();
    for (const v of d.values.filter((x) => !x.isDeleted && x.module === mod._id && !victims.some((r) => r._id === x.record))) counts.set(v.column as string, (counts.get(v.column as string) ?? 0) + 1);
    const [column, cells] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]!;
    expect((await api(h.emu, 'DELETE', `/columns/${column}`)).status).toBe(200);
    const s2 = await pass();
    const changes = h.store.changeCounts(s1, s2).find((c) => c.moduleId === mod._id)!;
    expect(changes.records.removed).toBeGreaterThanOrEqual(victims.length);
    expect(changes.records.before).toBeGreaterThanOrEqual(live.length);
    const col = changes.columns.find((c) => c.columnId === column);
    expect(col).toMatchObject({ deleted: true });
    const findings = evaluateTripwire(h.store.changeCounts(s1, s2), T, s1, s2);
    expect(findings).toHaveLength(1);
    expect(findings[0]!.what[0]).toMatch(new RegExp(`^\\d+ of \\d+ records archived or deleted`));
    expect(findings[0]).toMatchObject({ kind: 'mass-change', moduleId: mod._id, snapshot: s1, damageSnapshot: s2, kinds: [] });
    expect(undoLine(undoArgv(findings[0]!, 1)!)).toBe('wbsync rollback --incident 1 --pause-automations');
    expect(cells).toBeGreaterThan(0);

    // the module deleted
    expect((await api(h.emu, 'DELETE', `/modules/${mod._id}`)).status).toBe(200);
    const s3 = await pass();
    const gone = evaluateTripwire(h.store.changeCounts(s2, s3), T, s2, s3);
    expect(gone).toEqual([expect.objectContaining({ kind: 'module-deleted', moduleId: mod._id })]);
    expect(undoLine(undoArgv(gone[0]!, 1)!)).toBe(`wbsync restore module ${mod._id} --snapshot ${s2} --pause-automations`);
    // the feed's deletion row names who did it (the observed service's row names no module: by name)
    expect(gone[0]!.by).toEqual([expect.objectContaining({ rows: 1, name: expect.any(String) })]);
  });

  it('counts cells as the console and diff do: a newly filled cell is added, the same value written again is no change', async () => {
    h = await makeHarness(dialect);
    const s0 = (await h.sync()).snapshot;
    const d = dumpOf(h.emu);
    const stage = d.columns.find((c) => c.name === 'Stage' && !c.isDeleted)!;
    const deals = d.records.filter((r) => r.module === stage.module && !r.isDeleted && !r.isArchived && !r.parentRecord);
    const cells = new Map(d.values.filter((v) => v.column === stage._id && !v.isDeleted).map((v) => [v.record as string, v]));
    for (const r of deals) {
      const cell = cells.get(r._id);
      const res = cell
        ? await api(h.emu, 'PUT', `/record-values/${cell._id}`, { value: 'Lost' })
        : await api(h.emu, 'POST', '/record-values', { record: r._id, column: stage._id, value: 'Lost', collectionName: r.collectionName, module: r.module, workspace: r.workspace });
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    }
    const s1 = await pass();
    const col = h.store.changeCounts(s0, s1).find((c) => c.moduleId === stage.module)!.columns.find((c) => c.columnId === stage._id)!;
    const entries = diffModuleTrees(treeFromState(h.store.stateAt(s0)!, stage.module)!, treeFromState(h.store.stateAt(s1)!, stage.module)!, { matchBy: 'id' }).entries.filter((e) => e.entity === 'cell');
    const same = [...cells.values()].filter((v) => v.value === 'Lost').length;
    expect(same).toBeGreaterThan(0);
    expect(col).toMatchObject({ added: deals.length - cells.size, changed: cells.size - same, removed: 0 });
    expect({ added: col.added, changed: col.changed, removed: col.removed }).toEqual({
      added: entries.filter((e) => e.change === 'added').length,
      changed: entries.filter((e) => e.change === 'changed').length,
      removed: entries.filter((e) => e.change === 'removed').length,
    });
  });
});

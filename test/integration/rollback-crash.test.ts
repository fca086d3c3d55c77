// Crash safety of `wbsync rollback`: the same damage (cells overwritten, a column deleted, a comment
// thread deleted, records renamed) is rolled back once without interruption (the reference), then,
// for ten kill points spread over the reference's writes, applied again and rolled back by a run
// killed at its Nth write — before the write reaches the service, or after the service did it but
// before the journal heard back — and the same command run again. Each resumed run must say so and
// end in the reference's state, with nothing twice (one recreated column, one copy of each note),
// and the automations it paused active again.

import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { idMapOf } from '../../src/restore/index.js';
import { dumpOf } from '../helpers/harness.js';
import { compareModules, formatDifferences, invertIdMap, translateIds } from '../helpers/module-compare.js';
import { readModule, type ModuleView } from '../helpers/module-snapshot.js';
import { attributed, board, call, dyingClient, expectAmendment, runRollback, setCell, syncAfterDamage, withoutOrphans } from '../helpers/rollback-kit.js';

describe.each(['spec', 'observed'] as Dialect[])('rollback crash safety (%s dialect)', (dialect) => {
  it('resumes after a kill at ten points of its writes with the same result and no duplicates', async () => {
    const b = await board(dialect, 'Sales Pipeline');
    const { h } = b;
    try {
      const stage = b.col('Stage');
      const d0 = dumpOf(h.emu);
      const stageOf = (id: string) => d0.values.find((v) => v.record === id && v.column === stage && !v.isDeleted)?.value;
      const overwritten = d0.records
        .filter((r) => r.module === b.mod && !r.parentRecord && !r.isArchived && !r.isDeleted && !['Contacted', 'Won'].includes(String(stageOf(r._id))))
        .slice(0, 8)
        .map((r) => r._id as string);
      expect(overwritten).toHaveLength(8);
      const renamed = ['Hooli', 'Cyberdyne', 'Wonka Industries', 'Pied Piper'].map((n) => b.rec(n));
      const goodName = new Map(Object.values(b.good.records).flat().map((r) => [r.id, String(r.fields.name)]));
      const globex = b.rec('Globex Corporation');
      const thread = d0.amendments.filter((a) => a.record === globex && !a.isDeleted).sort((x, y) => (x.createdAt < y.createdAt ? -1 : 1));
      expect(thread).toHaveLength(3);
      const priorityCells = Object.values(b.good.cells).flat().filter((c) => c.column === b.col('Priority')).length;
      expect(priorityCells).toBeGreaterThan(5);

      /** The damage, again on whatever the last rollback left (recreated objects have new ids). */
      const damage = async (): Promise<void> => {
        for (const id of overwritten) await setCell(b, id, stage, 'Contacted');
        await call(h, 'DELETE', `/columns/${b.col('Priority')}`);
        const notes = dumpOf(h.emu).amendments.filter((a) => a.record === globex && !a.isDeleted);
        for (const n of notes.filter((x) => x.parentComment)) await call(h, 'DELETE', `/amendments/${n._id}`);
        for (const n of notes.filter((x) => !x.parentComment)) await call(h, 'DELETE', `/amendments/${n._id}`);
        for (const id of renamed) await call(h, 'PUT', `/records/${id}`, { name: `${goodName.get(id)} [x]` });
        await syncAfterDamage(h);
      };
      const automationsNow = async (): Promise<Record<string, boolean>> =>
        Object.fromEntries([...(await h.client.listWorkspaceAutomations(b.ws)), ...(await h.client.listModuleAutomations(b.mod))].map((a) => [a.name, a.isActive]));
      const automations = await automationsNow();
      expect(Object.values(automations).some((x) => x)).toBe(true);
      /** The module as it is now, ids translated back to the snapshot's through the run's id map. */
      const readBack = async (runId: number): Promise<ModuleView> => translateIds(withoutOrphans(await readModule(h.emu, b.mod)), invertIdMap(idMapOf(h.store.db, runId)));
      const opts = { moduleId: b.mod, toSnapshot: b.s1, pauseAutomations: true };

      // the reference: uninterrupted, counting its writes
      await damage();
      const sequence: string[] = [];
      const ref = await runRollback(h, opts, dyingClient(h.client, Infinity, 'before', (m) => void sequence.push(m)));
      const writes = sequence.length;
      expect(ref.resumed).toBe(false);
      expect(ref.conflicts).toEqual([]);
      expect(ref.notRestored).toEqual([]);
      expect(ref.counts.columnsRecreated).toBe(1);
      expect(writes).toBeGreaterThan(25);
      const reference = await readBack(ref.runId!);
      const expected = structuredClone(b.good);
      for (const n of thread) expectAmendment(expected, n._id, { message: attributed(h, n) });
      expect(formatDifferences(compareModules(expected, reference, new Map())), 'the uninterrupted rollback').toEqual([]);
      expect(await automationsNow()).toEqual(automations);

      const points = Array.from({ length: 10 }, (_, i) => Math.max(1, Math.round(((i + 0.5) * writes) / 10)));
      // one of the 'after' kills on the column's create (the service made it; the journal never heard)
      const created = sequence.indexOf('createColumn') + 1;
      expect(created).toBeGreaterThan(0);
      const nearest = points.map((p, i) => ({ p, i })).filter(({ i }) => i % 2 === 0).sort((x, y) => Math.abs(x.p - created) - Math.abs(y.p - created))[0]!.i;
      points[nearest] = created;
      expect(points.filter((p, i) => i % 2 === 0).map((p) => sequence[p - 1])).toEqual(expect.arrayContaining(['createColumn', 'createValue', 'createAmendment']));
      for (const [i, n] of points.entries()) {
        const when = i % 2 === 0 ? 'after' : 'before';
        await damage();
        await expect(runRollback(h, opts, dyingClient(h.client, n, when)), `N=${n} ${when}`).rejects.toThrow(/killed/);
        await h.emu.idle();
        const res = await runRollback(h, opts);
        expect(res.resumed, `N=${n} ${when}: reported resumed`).toBe(true);
        expect(res.notRestored, `N=${n} ${when}`).toEqual([]);
        const now = await readBack(res.runId!);
        expect(formatDifferences(compareModules(reference, now, new Map())).map((d) => `N=${n} ${when}: ${d}`)).toEqual([]);
        // nothing twice
        const d = dumpOf(h.emu);
        expect(d.columns.filter((c) => c.module === b.mod && c.name === 'Priority' && !c.isDeleted), `N=${n} ${when}: one Priority column`).toHaveLength(1);
        const live = d.amendments.filter((a) => a.record === globex && !a.isDeleted).map((a) => a.message as string);
        expect(live.sort(), `N=${n} ${when}: each note posted once`).toEqual(thread.map((t) => attributed(h, t)).sort());
        const priority = b.col('Priority');
        expect(d.values.filter((v) => v.column === priority && !v.isDeleted), `N=${n} ${when}: each cell once`).toHaveLength(priorityCells);
        expect(await automationsNow(), `N=${n} ${when}: automations active again`).toEqual(automations);
      }
    } finally {
      await h.close();
    }
  });
});

// `wbsync rollback`'s options on the demo seed, both dialects: --changed-between keeping later edits
// the daemon already synced, --dry-run sending only GETs and listing the writes a real run makes,
// and the refusals that write nothing (exit 6 and 2).

import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import type { FieldChange } from '../../src/restore/index.js';
import { api, dumpOf } from '../helpers/harness.js';
import { board, call, cellId, closing, conflictOf, differencesFrom, expectCellValue, expectedFrom, rollbackCli, runRollback, setCell, sleep, syncAfterDamage, writesSince } from '../helpers/rollback-kit.js';

describe.each(['spec', 'observed'] as Dialect[])('rollback options and refusals (%s dialect)', (dialect) => {
  it('later edits the daemon already synced are kept when --changed-between pins the damage', async () => {
    const b = await board(dialect, 'Sales Pipeline');
    await closing(b, async () => {
      const { h } = b;
      const notes = b.col('Notes');
      const targets = ['Globex Corporation', 'Initech (renewal)', 'Hooli'].map((n) => b.rec(n));
      await sleep(5);
      const T1 = h.emu.clock.now().toISOString();
      for (const id of targets) await setCell(b, id, notes, 'IMPORTED');
      await sleep(5);
      const T2 = h.emu.clock.now().toISOString();
      await sleep(5);
      const damaged = await syncAfterDamage(h);
      await setCell(b, targets[0]!, notes, 'Fixed by hand');
      await syncAfterDamage(h); // the daemon's next pass sees the later edit
      const r = await runRollback(h, { moduleId: b.mod, toSnapshot: b.s1, changedBetween: [T1, T2] });
      expect(r.afterSnapshot).toBe(damaged);
      expect(r.conflicts).toEqual([conflictOf('cell', cellId(h, targets[0]!, notes), 'value', 'Fixed by hand')]);
      const expected = expectedFrom(b.good);
      expectCellValue(expected, targets[0]!, notes, 'Fixed by hand');
      expect(await differencesFrom(b, expected, r.runId)).toEqual([]);
    });
  });

  it('--dry-run sends only GETs, and lists exactly the writes a real run then makes', async () => {
    const b = await board(dialect, 'Sales Pipeline');
    await closing(b, async () => {
      const { h } = b;
      const stage = b.col('Stage');
      const d0 = dumpOf(h.emu);
      const stageOf = (id: string) => d0.values.find((v) => v.record === id && v.column === stage && !v.isDeleted)?.value;
      const targets = ['Globex Corporation', 'Initech (renewal)', 'Vandelay Imports', 'Cyberdyne'].map((n) => b.rec(n));
      for (const id of targets) expect(stageOf(id)).not.toBe('Contacted');
      // DAMAGE: cells overwritten (one set where there was none), two renames
      for (const id of targets) await setCell(b, id, stage, 'Contacted');
      await call(h, 'PUT', `/records/${b.rec('Wonka Industries')}`, { name: 'Wonka' });
      await call(h, 'PUT', `/records/${b.rec('Hooli')}`, { name: 'Hooli (old)' });
      await syncAfterDamage(h);

      const from = h.emu.requestLog.total();
      const dry = await rollbackCli(h, ['--module', b.mod, '--to-snapshot', String(b.s1), '--dry-run', '--json']);
      expect(dry.json, dry.err).not.toBeNull();
      expect(dry.code).toBe(0);
      expect(dry.json.dryRun).toBe(true);
      expect(writesSince(h, from), 'a dry run sends only GETs').toEqual([]);
      expect(dry.json.writes).toHaveLength(6);
      // the automation on Stage is named as one the writes could set off
      expect(dry.json.wouldTrigger.map((a: { name: string }) => a.name)).toContain('Won deals are completed');

      const start = h.emu.requestLog.total();
      const real = await runRollback(h, { moduleId: b.mod, toSnapshot: b.s1 });
      expect(JSON.parse(JSON.stringify(real.writes))).toEqual(dry.json.writes);
      const sent = writesSince(h, start).sort();
      const wanted = [
        ...new Set(
          (real.writes as FieldChange[]).map((w) =>
            w.entity === 'cell' ? `${w.base === null ? 'DELETE' : 'PUT'} /api/record-values/${w.id}` : `PUT /api/records/${w.id}`,
          ),
        ),
      ].sort();
      expect(sent).toEqual(wanted);
      expect(await differencesFrom(b, b.good, real.runId)).toEqual([]);
    });
  });

  it('refusals write nothing: module deleted (6, restore module), snapshot without the module (6), neither/both of --to-snapshot/--to (2)', async () => {
    const b = await board(dialect, 'Sales Pipeline');
    await closing(b, async () => {
      const { h } = b;
      const fresh = await call(h, 'POST', `/modules/${b.ws}`, { name: 'Scratch board' }, 'module');
      await syncAfterDamage(h);
      const from = h.emu.requestLog.total();

      const notHeld = await rollbackCli(h, ['--module', fresh._id, '--to-snapshot', String(b.s1)]);
      expect(notHeld.code, notHeld.err).toBe(6);
      expect(notHeld.err + notHeld.out).toMatch(/does not hold/);

      const neither = await rollbackCli(h, ['--module', b.mod]);
      expect(neither.code, neither.err).toBe(2);
      const at = h.store.listSnapshots().find((s) => s.id === b.s1)!.finishedAt!;
      const both = await rollbackCli(h, ['--module', b.mod, '--to-snapshot', String(b.s1), '--to', at]);
      expect(both.code, both.err).toBe(2);
      expect(writesSince(h, from)).toEqual([]);

      await call(h, 'DELETE', `/modules/${b.mod}`);
      const after = h.emu.requestLog.total();
      const gone = await rollbackCli(h, ['--module', b.mod, '--to-snapshot', String(b.s1)]);
      expect(gone.code, gone.err).toBe(6);
      expect(gone.err + gone.out).toMatch(/restore module/);
      const goneJson = await rollbackCli(h, ['--module', b.mod, '--to-snapshot', String(b.s1), '--json']);
      expect(goneJson.code).toBe(6);
      expect(goneJson.err + goneJson.out).toMatch(/restore module/);
      expect(writesSince(h, after)).toEqual([]);
    });
  });
});

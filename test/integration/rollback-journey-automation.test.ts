// The bad day's journey for an automation (#31: "a deleted column that a recipe names"), both dialects,
// as a person lives it: a module automation "Won deals are completed" watches the Stage column; a member
// deletes the column; the backup syncs; the admin runs the rollback as printed (an argument vector,
// no shell). The column comes back with its cells under a new id, the automation is re-pointed at it,
// and it FIRES on the recreated column when someone next sets a deal to Won.

import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { idMapOf } from '../../src/restore/index.js';
import { dumpOf } from '../helpers/harness.js';
import { compareModules, formatDifferences, invertIdMap } from '../helpers/module-compare.js';
import { readModule } from '../helpers/module-snapshot.js';
import { deadIdsIn } from '../helpers/rollback-checks.js';
import { board, call, rollbackCli, setCell, syncAfterDamage, withoutOrphans } from '../helpers/rollback-kit.js';

describe.each(['spec', 'observed'] as Dialect[])('journey: a deleted column that an automation names (%s dialect)', (dialect) => {
  it('rollback recreates it; the automation is re-pointed and fires on the recreated column', async () => {
    let automationId = '';
    const b = await board(dialect, 'Sales Pipeline', async (x) => {
      automationId = (
        await call(x.h, 'POST', `/automations/${x.mod}`, {
          name: 'Won deals close themselves',
          trigger: { type: 'column_changed_to', column: x.col('Stage'), value: 'Won' },
          conditions: [],
          match: 'all',
          actions: [{ type: 'set_completed', value: true }],
        }, 'automation')
      )._id;
    });
    const { h } = b;
    try {
      const stage = b.col('Stage');
      // DAMAGE: a member deletes the column; the backup's next pass sees it
      await call(h, 'DELETE', `/columns/${stage}`);
      await syncAfterDamage(h);

      // the undo, run as printed
      const res = await rollbackCli(h, ['--module', b.mod, '--to-snapshot', String(b.s1), '--pause-automations', '--json']);
      expect(res.code, res.err || res.out).toBe(0);
      expect(res.json.notRestored).toEqual([]);
      // ours, and the demo's own automations on Stage
      expect(res.json.repointed.automations).toEqual(expect.arrayContaining([{ id: automationId, name: 'Won deals close themselves', names: [stage] }]));

      // the module as it was, the column under a new id
      const map = idMapOf(h.store.db, res.json.runId);
      const copy = map.get(stage)!;
      expect(copy).toMatch(/^[0-9a-f]{24}$/);
      expect(copy).not.toBe(stage);
      const after = withoutOrphans(await readModule(h.emu, b.mod));
      expect(formatDifferences(compareModules(withoutOrphans(b.good), after, invertIdMap(map)))).toEqual([]);
      expect(await deadIdsIn(h.emu, b.mod, b.good)).toEqual([]);
      const automation = () => dumpOf(h.emu).automations.find((a) => a._id === automationId)!;
      expect(automation().trigger).toEqual({ type: 'column_changed_to', column: copy, value: 'Won' });
      expect(automation().isActive).toBe(true);

      // it fires on the recreated column
      const deal = dumpOf(h.emu).records.find((r) => r.module === b.mod && !r.parentRecord && !r.isArchived && !r.isDeleted && !r.isCompleted)!;
      const runs = automation().runCount;
      await setCell(b, deal._id, copy, 'Won');
      await h.emu.idle();
      expect(dumpOf(h.emu).records.find((r) => r._id === deal._id)!.isCompleted).toBe(true);
      expect(automation().runCount).toBe(runs + 1);
      expect(automation().lastError ?? '').toBe('');
    } finally {
      await h.close();
    }
  });
});

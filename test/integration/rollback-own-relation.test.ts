// The rollback of a module's OWN relation column whose settings name something the rollback makes
// anew: Sales Pipeline gets a relation column "Related deal" linking its own rows and showing their
// Deal value; a member links two deals. The damage deletes Deal value (so the relation column's
// settings name a dead column); after it, a member links a third deal. The rollback as printed
// brings Deal value back under a new id. On the deployed service the relation column is re-pointed
// in place; where settings are create-only (the published interface) it must not be made anew —
// its cells are links people made, one of them after the damage — so it keeps its id and every
// link, and is declared (exit 5) with the advice to point it again by hand.

import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { idMapOf } from '../../src/restore/index.js';
import { dumpOf } from '../helpers/harness.js';
import { board, call, rollbackCli, setCell, syncAfterDamage } from '../helpers/rollback-kit.js';

describe.each(['spec', 'observed'] as Dialect[])("rollback of the module's own relation column (%s dialect)", (dialect) => {
  it('keeps the relation column and every link made before and after the damage; re-points it in place or declares it', async () => {
    let related = '';
    let deals: string[] = [];
    const b = await board(dialect, 'Sales Pipeline', async (x) => {
      const d = dumpOf(x.h.emu);
      deals = d.records.filter((r) => r.module === x.mod && !r.parentRecord && !r.isArchived && !r.isDeleted).map((r) => r._id as string).slice(0, 3);
      related = (await call(x.h, 'POST', `/columns/${x.mod}`, { name: 'Related deal', type: 'relation', settings: { targetModule: x.mod, displayField: x.col('Deal value') } }, 'column'))._id;
      await setCell(x, deals[0]!, related, JSON.stringify([deals[1]]));
      await setCell(x, deals[1]!, related, JSON.stringify([deals[2]]));
    });
    const { h } = b;
    try {
      expect(deals).toHaveLength(3);
      const dealValue = b.col('Deal value');
      const links = () =>
        dumpOf(h.emu)
          .values.filter((v) => v.column === related && !v.isDeleted)
          .map((v) => [v.record, v.value])
          .sort();

      const beforeDamage = links();
      expect(beforeDamage).toHaveLength(2);
      // DAMAGE: Deal value deleted and one link removed; a pass sees it; then a member links a third deal
      await call(h, 'DELETE', `/columns/${dealValue}`);
      await call(h, 'DELETE', `/record-values/${dumpOf(h.emu).values.find((v) => v.column === related && v.record === deals[0] && !v.isDeleted)!._id}`);
      await syncAfterDamage(h, { full: true });
      await setCell(b, deals[2]!, related, JSON.stringify([deals[0]]));
      await h.emu.idle();
      const later = links();
      expect(later).toHaveLength(2);

      const dry = await rollbackCli(h, ['--module', b.mod, '--to-snapshot', String(b.s1), '--dry-run']);
      // the link made after the damage is listed as a conflict, kept (exit 5)
      expect(dry.code, dry.err || dry.out).toBe(5);
      expect(dry.out).toMatch(/conflicts[^\n]*kept[^\n]*\n\s+cell [^\n]*· Related deal/);
      expect(dry.out).toMatch(/\n\s+Related deal \([0-9a-f]+\): re-pointed in place; declared where the service keeps settings create-only/);

      const res = await rollbackCli(h, ['--module', b.mod, '--to-snapshot', String(b.s1), '--json']);
      const map = idMapOf(h.store.db, res.json.runId);
      const copy = map.get(dealValue)!;
      expect(copy).toBeTruthy();
      expect(copy).not.toBe(dealValue);

      // the relation column is the same column, its links all there (the one made after the damage too)
      const cols = dumpOf(h.emu).columns.filter((c) => c.module === b.mod && c.name === 'Related deal' && !c.isDeleted);
      expect(cols.map((c) => c._id)).toEqual([related]);
      // every link: the one the damage removed put back, the one made after the damage kept
      expect(links()).toEqual([...later, ...beforeDamage.filter(([r]) => r === deals[0])].sort());
      expect(links()).toHaveLength(3);
      expect(res.code, res.err || res.out).toBe(5);
      expect(res.json.conflicts).toEqual([expect.objectContaining({ entity: 'cell', field: 'value', live: JSON.stringify([deals[0]]), label: expect.stringContaining('Related deal') })]);
      const declared = res.json.notRestored.filter((n: any) => n.id === related);
      if (dialect === 'observed') {
        expect(declared).toEqual([]);
        expect(cols[0]!.settings.displayField).toBe(copy);
        expect(res.json.repointed.columns.find((c: any) => c.id === related)).toMatchObject({ names: [dealValue], how: 're-pointed' });
      } else {
        // settings create-only: declared with the advice, never made anew
        expect(declared).toEqual([expect.objectContaining({ entity: 'column', reason: expect.stringContaining('point column Related deal at column Deal value (made anew by this rollback) again by hand') })]);
        expect(res.json.repointed.columns.find((c: any) => c.id === related)).toMatchObject({ names: [dealValue], how: 'not re-pointed' });
        expect(cols[0]!.settings.displayField).toBe(dealValue);
      }
    } finally {
      await h.close();
    }
  });
});

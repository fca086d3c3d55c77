// A rollback re-points what OTHER modules hold that named the module's recreated structure (#31 item
// 7), both dialects, on the demo seed: Product Roadmap has an automation "Shipped → follow-up deal"
// that creates an item in Sales Pipeline's collection Qualified, one like it that is off, a reference
// column "Customer stage" showing Sales Pipeline's Stage column and a relation column "Customer"
// showing its Deal value. A member deletes Stage, Deal value and Qualified; the backup syncs; the
// admin rolls Sales Pipeline back as printed. All come back under new ids; Roadmap's automations are
// re-pointed at the copy (the one that was off stays off) and the one that is on FIRES into the
// recreated collection; Roadmap's reference column shows the recreated Stage (re-pointed in place on
// the deployed service, made anew where settings are create-only); its relation column is re-pointed
// in place on the deployed service and declared where settings are create-only.

import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { idMapOf } from '../../src/restore/index.js';
import { dumpOf } from '../helpers/harness.js';
import { board, call, rollbackCli, syncAfterDamage } from '../helpers/rollback-kit.js';

describe.each(['spec', 'observed'] as Dialect[])('rollback re-points other modules (%s dialect)', (dialect) => {
  it("another module's automations and relation/reference columns naming recreated columns and a collection follow the copies; the automation fires", async () => {
    let roadmap = '';
    let onId = '';
    let offId = '';
    const b = await board(dialect, 'Sales Pipeline', async (x) => {
      roadmap = dumpOf(x.h.emu).modules.find((m) => m.name === 'Product Roadmap' && !m.isDeleted)!._id;
      const recipe = (name: string, isActive: boolean) => ({
        name,
        trigger: { type: 'record_completed' },
        conditions: [],
        match: 'all',
        actions: [{ type: 'create_record', targetModule: x.mod, targetCollection: x.coll('Qualified'), value: `Follow-up (${name})` }],
        isActive,
      });
      onId = (await call(x.h, 'POST', `/automations/${roadmap}`, recipe('Shipped → follow-up deal', true), 'automation'))._id;
      offId = (await call(x.h, 'POST', `/automations/${roadmap}`, recipe('Parked recipe', false), 'automation'))._id;
    });
    const { h } = b;
    try {
      const stage = b.col('Stage');
      const dealValue = b.col('Deal value');
      const qualified = b.coll('Qualified');
      const customer = dumpOf(h.emu).columns.find((c) => c.module === roadmap && c.name === 'Customer' && !c.isDeleted)!._id as string;
      const customerStage = dumpOf(h.emu).columns.find((c) => c.module === roadmap && c.name === 'Customer stage' && !c.isDeleted)!._id as string;
      expect(dumpOf(h.emu).columns.find((c) => c._id === customerStage)!.settings.field).toBe(stage);

      // DAMAGE: two columns and the collection deleted; a full pass sees it (collection deletes carry no id)
      await call(h, 'DELETE', `/columns/${stage}`);
      await call(h, 'DELETE', `/columns/${dealValue}`);
      await call(h, 'DELETE', `/collections/${qualified}`);
      await syncAfterDamage(h, { full: true });

      // the dry run lists the other module's re-pointings
      const dry = await rollbackCli(h, ['--module', b.mod, '--to-snapshot', String(b.s1), '--pause-automations', '--dry-run']);
      expect(dry.code, dry.err || dry.out).toBe(0);
      expect(dry.out).toContain('Product Roadmap › Shipped → follow-up deal');
      expect(dry.out).toContain('Product Roadmap › Parked recipe');
      expect(dry.out).toContain('Product Roadmap › Customer stage');
      expect(dry.out).toContain('Product Roadmap › Customer (');

      const res = await rollbackCli(h, ['--module', b.mod, '--to-snapshot', String(b.s1), '--pause-automations', '--json']);
      // Roadmap's relation column shows Deal value: its settings change in place on the deployed
      // service; where they are create-only it is declared (exit 5), never made anew
      expect(res.code, res.err || res.out).toBe(dialect === 'observed' ? 0 : 5);
      if (dialect === 'observed') expect(res.json.notRestored).toEqual([]);
      else expect(res.json.notRestored).toEqual([expect.objectContaining({ entity: 'column', id: customer, reason: expect.stringContaining('point column Customer at module Sales Pipeline again by hand') })]);
      const owner = { scope: 'module', id: roadmap, name: 'Product Roadmap' };
      expect(res.json.repointed.automations).toEqual(
        expect.arrayContaining([
          { id: onId, name: 'Shipped → follow-up deal', names: [qualified], owner },
          { id: offId, name: 'Parked recipe', names: [qualified], owner },
        ]),
      );
      const col = res.json.repointed.columns.find((c: any) => c.id === customerStage);
      expect(col).toMatchObject({ name: 'Customer stage', names: [stage], owner, how: dialect === 'observed' ? 're-pointed' : 'recreated' });

      const map = idMapOf(h.store.db, res.json.runId);
      const stageCopy = map.get(stage)!;
      const dealValueCopy = map.get(dealValue)!;
      expect(res.json.repointed.columns.find((c: any) => c.id === customer)).toMatchObject({ names: [dealValue], owner, how: dialect === 'observed' ? 're-pointed' : 'not re-pointed' });
      const relation = dumpOf(h.emu).columns.filter((c) => c.module === roadmap && c.name === 'Customer' && !c.isDeleted);
      expect(relation.map((c) => [c._id, c.settings.displayField])).toEqual([[customer, dialect === 'observed' ? dealValueCopy : dealValue]]);
      const qualifiedCopy = map.get(qualified)!;
      expect(stageCopy).not.toBe(stage);
      expect(qualifiedCopy).not.toBe(qualified);

      // the reference column shows the recreated Stage: in place, or made anew and the old one gone
      const live = dumpOf(h.emu).columns.filter((c) => c.module === roadmap && c.name === 'Customer stage' && !c.isDeleted);
      expect(live).toHaveLength(1);
      expect(live[0]!._id).toBe(dialect === 'observed' ? customerStage : col.newId);
      expect(live[0]!.settings.field).toBe(stageCopy);

      // the automations name the copy; the one that was off stays off
      const automation = (id: string) => dumpOf(h.emu).automations.find((a) => a._id === id)!;
      expect(automation(onId).actions[0].targetCollection).toBe(qualifiedCopy);
      expect(automation(offId).actions[0].targetCollection).toBe(qualifiedCopy);
      expect(automation(onId).isActive).toBe(true);
      expect(automation(offId).isActive).toBe(false);

      // it fires: a Roadmap item completed creates a follow-up in the recreated collection
      const item = dumpOf(h.emu).records.find((r) => r.module === roadmap && !r.parentRecord && !r.isArchived && !r.isDeleted && !r.isCompleted)!;
      const runs = automation(onId).runCount;
      await call(h, 'PUT', `/records/${item._id}`, { isCompleted: true });
      await h.emu.idle();
      expect(automation(onId).lastError ?? '').toBe('');
      expect(automation(onId).runCount).toBe(runs + 1);
      const followUps = dumpOf(h.emu).records.filter((r) => r.module === b.mod && r.name === 'Follow-up (Shipped → follow-up deal)' && !r.isDeleted);
      expect(followUps.map((r) => r.collectionName)).toEqual([qualifiedCopy]);
    } finally {
      await h.close();
    }
  });
});

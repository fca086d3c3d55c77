// `restore module` re-points what the workspace and the OTHER modules hold that named the deleted
// module's ids (#31 item 7), both dialects, on the demo seed. Before the damage: Product Roadmap has an
// automation that creates an item in Sales Pipeline's collection Qualified when an item is completed,
// and a relation column "Customer" (targetModule Sales Pipeline, displayField Deal value) with two
// reference columns showing Sales Pipeline's Deal value and Stage; the workspace has a recipe "Lost
// proposals are flagged" whose condition names Sales Pipeline's collection Proposal, and one like it
// that is off. A member deletes Sales Pipeline; the backup syncs; the admin restores it as printed.
// The copy has new ids; the automations name them (the one that was off stays off) and FIRE on the
// restored module; the columns follow it — in place on the deployed service; where settings are
// create-only the reference columns are made anew and the relation column (its cells are links people
// made) is declared with what to do.

import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import type { Dialect } from '../../src/emulator/types.js';
import { idMapOf } from '../../src/restore/index.js';
import { dumpOf } from '../helpers/harness.js';
import { board, call, setCell, syncAfterDamage } from '../helpers/rollback-kit.js';
import { nameSalesFromOthers, type Others } from '../helpers/repoint-others.js';

describe.each(['spec', 'observed'] as Dialect[])('restore module re-points the workspace and other modules (%s dialect)', (dialect) => {
  it('automations and relation/reference columns naming the deleted module follow the copy; the automations fire on it', async () => {
    let others: Others | undefined;
    const b = await board(dialect, 'Sales Pipeline', async (x) => {
      others = await nameSalesFromOthers(x);
    });
    const { roadmap, roadmapAuto, wsOn, wsOff } = others!;
    const { h } = b;
    try {
      const old = { mod: b.mod, qualified: b.coll('Qualified'), proposal: b.coll('Proposal'), dealValue: b.col('Deal value'), stage: b.col('Stage') };
      const roadmapCol = (name: string) => dumpOf(h.emu).columns.filter((c) => c.module === roadmap && c.name === name && !c.isDeleted);
      const customer = roadmapCol('Customer')[0]!._id as string;
      const customerValue = roadmapCol('Customer value')[0]!._id as string;
      const customerStage = roadmapCol('Customer stage')[0]!._id as string;

      // DAMAGE: the module deleted; the backup's next pass sees it
      await call(h, 'DELETE', `/modules/${b.mod}`);
      await syncAfterDamage(h, { full: true });

      const restore = async (extra: string[]) => {
        let out = '';
        let err = '';
        const code = await runCli(['restore', 'module', old.mod, '--pause-automations', ...extra, '--db', h.dbPath], {
          stdout: { write: (s) => void (out += s) },
          stderr: { write: (s) => void (err += s) },
          env: { WBSYNC_BASE_URL: h.emu.baseUrl, WBSYNC_API_KEY: h.emu.apiKey, WBSYNC_LOG_LEVEL: 'silent' },
        });
        await h.emu.idle();
        return { code, out, err };
      };

      // the dry run lists what will be re-pointed
      const dry = await restore(['--dry-run']);
      expect(dry.code, dry.err || dry.out).toBe(0);
      for (const line of ['Product Roadmap › Shipped → follow-up deal', 'the workspace › Lost proposals are flagged', 'the workspace › Parked flag', 'Product Roadmap › Customer (', 'Product Roadmap › Customer value', 'Product Roadmap › Customer stage']) expect(dry.out).toContain(line);

      const run = await restore(['--json']);
      const res = JSON.parse(run.out);
      // the relation column cannot change its settings where they are create-only: declared (exit 5)
      expect(run.code, run.err || run.out).toBe(dialect === 'observed' ? 0 : 5);
      // (the seed's archived row that no backup saw live is declared too; it has nothing to do with this)
      const declared = res.notRestored.filter((n: any) => n.entity !== 'record');
      if (dialect === 'observed') expect(declared).toEqual([]);
      else expect(declared).toEqual([expect.objectContaining({ entity: 'column', id: customer, reason: expect.stringContaining('point column Customer at module Sales Pipeline again by hand') })]);

      const map = idMapOf(h.store.db, res.runId);
      const now = { mod: res.moduleId as string, qualified: map.get(old.qualified)!, proposal: map.get(old.proposal)!, dealValue: map.get(old.dealValue)!, stage: map.get(old.stage)! };
      for (const [k, v] of Object.entries(now)) expect(v, k).not.toBe(old[k as keyof typeof old]);

      // the result says what was re-pointed, and how
      const roadmapOwner = { scope: 'module', id: roadmap, name: 'Product Roadmap' };
      const wsOwner = { scope: 'workspace', id: b.ws, name: 'the workspace' };
      expect(res.repointed.automations).toEqual(
        expect.arrayContaining([
          { id: roadmapAuto, name: 'Shipped → follow-up deal', names: [old.mod, old.qualified], owner: roadmapOwner },
          { id: wsOn, name: 'Lost proposals are flagged', names: [old.proposal], owner: wsOwner },
          { id: wsOff, name: 'Parked flag', names: [old.proposal], owner: wsOwner },
        ]),
      );
      const how = (id: string) => res.repointed.columns.find((c: any) => c.id === id);
      expect(how(customer)).toMatchObject({ owner: roadmapOwner, names: [old.mod, old.dealValue], how: dialect === 'observed' ? 're-pointed' : 'not re-pointed' });
      expect(how(customerValue)).toMatchObject({ owner: roadmapOwner, names: [old.dealValue], how: dialect === 'observed' ? 're-pointed' : 'recreated' });
      expect(how(customerStage)).toMatchObject({ owner: roadmapOwner, names: [old.stage], how: dialect === 'observed' ? 're-pointed' : 'recreated' });

      // the columns: in place on the deployed service; made anew (the old ones gone) where create-only
      const settingsOf = (name: string) => {
        const live = roadmapCol(name);
        expect(live, name).toHaveLength(1);
        return live[0]!.settings;
      };
      if (dialect === 'observed') expect(settingsOf('Customer')).toEqual({ targetModule: now.mod, displayField: now.dealValue });
      else expect(settingsOf('Customer')).toEqual({ targetModule: old.mod, displayField: old.dealValue });
      expect(settingsOf('Customer value').field).toBe(now.dealValue);
      expect(settingsOf('Customer stage').field).toBe(now.stage);

      // on/off as they were
      const automation = (id: string) => dumpOf(h.emu).automations.find((a) => a._id === id)!;
      expect(automation(roadmapAuto).isActive).toBe(true);
      expect(automation(wsOn).isActive).toBe(true);
      expect(automation(wsOff).isActive).toBe(false);
      expect(automation(roadmapAuto).actions[0]).toMatchObject({ targetModule: now.mod, targetCollection: now.qualified });
      expect(automation(wsOff).conditions[0].value).toBe(now.proposal);

      // they fire on the restored module: a Roadmap item completed creates a deal in the copy's Qualified…
      const item = dumpOf(h.emu).records.find((r) => r.module === roadmap && !r.parentRecord && !r.isArchived && !r.isDeleted && !r.isCompleted)!;
      const runs = automation(roadmapAuto).runCount;
      await call(h, 'PUT', `/records/${item._id}`, { isCompleted: true });
      await h.emu.idle();
      expect(automation(roadmapAuto).lastError ?? '').toBe('');
      expect(automation(roadmapAuto).runCount).toBe(runs + 1);
      expect(dumpOf(h.emu).records.filter((r) => r.name === 'Follow-up deal' && !r.isDeleted).map((r) => [r.module, r.collectionName])).toEqual([[now.mod, now.qualified]]);

      // …and a restored proposal set to Lost is flagged by the workspace recipe
      const proposal = dumpOf(h.emu).records.find((r) => r.module === now.mod && r.collectionName === now.proposal && !r.parentRecord && !r.isArchived && !r.isDeleted)!;
      const wsRuns = automation(wsOn).runCount;
      await setCell({ h, mod: now.mod, ws: b.ws }, proposal._id, now.stage, 'Lost');
      await h.emu.idle();
      expect(automation(wsOn).runCount).toBe(wsRuns + 1);
      expect(dumpOf(h.emu).records.find((r) => r._id === proposal._id)!.name).toBe(`LOST: ${proposal.name}`);
    } finally {
      await h.close();
    }
  });
});

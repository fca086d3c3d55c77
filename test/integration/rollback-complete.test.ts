// Rollback puts the module back as it was (issue #38), both dialects, on the demo seed's Product
// Roadmap (sub-records, a relation column "Customer" and two reference columns going through it):
//  1. rows deleted since the snapshot come back in the same run (not "run restore records");
//  2. a parent deleted with its sub-records comes back with every one of them, each in the archived
//     state it had at the snapshot;
//  3. a deleted relation column comes back and the reference columns going through it resolve again
//     (re-pointed where the service lets settings change, made anew where they are create-only);
//  4. automations naming a recreated column or collection are re-pointed to the copy.
// Each: read "good", full sync, damage through the routes people use, sync, roll back, read live:
// equal to "good" modulo the ids of what was recreated, nothing declared.

import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { idMapOf } from '../../src/restore/index.js';
import { api, dumpOf } from '../helpers/harness.js';
import { compareModules, formatDifferences, invertIdMap } from '../helpers/module-compare.js';
import { readModule } from '../helpers/module-snapshot.js';
import { attributed, board, call, expectAmendment, runRollback, syncAfterDamage, withoutOrphans, type Board } from '../helpers/rollback-kit.js';
import { deadIdsIn, readReferences } from '../helpers/rollback-checks.js';

async function closing<T>(b: Board, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } finally {
    await b.h.close();
  }
}

/**
 * The module read live now, compared with "good" through the run's id map. A note of a record made
 * anew is posted again by wbsync's key, so it carries the attribution line (the service lets no one
 * set a note's author or time).
 */
async function leftOver(b: Board, runId: number | null): Promise<string[]> {
  const after = withoutOrphans(await readModule(b.h.emu, b.mod));
  const oldToNew = runId === null ? new Map<string, string>() : idMapOf(b.h.store.db, runId);
  const expected = withoutOrphans(b.good);
  const notes = dumpOf(b.h.emu).amendments;
  for (const [recordId, list] of Object.entries(expected.amendments)) {
    if ((oldToNew.get(recordId) ?? recordId) === recordId) continue;
    for (const n of list) if (!n.fields.isDeleted) expectAmendment(expected, n.id, { message: attributed(b.h, notes.find((x) => x._id === n.id)!) });
  }
  return formatDifferences(compareModules(expected, after, invertIdMap(oldToNew)));
}

describe.each(['spec', 'observed'] as Dialect[])('rollback brings everything back (%s dialect)', (dialect) => {
  it('1+2. rows deleted since the snapshot come back in the same run, a parent with every sub-record in its snapshot archived state', async () => {
    let archivedSub = '';
    const b = await board(dialect, 'Product Roadmap', async (x) => {
      // one sub-record of the parent archived before the snapshot (a backup saw it live, so the
      // snapshot holds it): it must stay archived
      expect((await x.h.sync({ full: true })).failures).toEqual([]);
      archivedSub = x.rec('Design review', 'SSO with SAML');
      await call(x.h, 'PUT', `/records/${archivedSub}`, { isArchived: true });
    });
    await closing(b, async () => {
      const { h } = b;
      const parent = b.rec('SSO with SAML');
      const plain = b.rec('Dark mode');
      const sub = b.rec('Build', 'Board templates');
      const subsOf = dumpOf(h.emu).records.filter((r) => r.parentRecord === parent && !r.isDeleted);
      expect(subsOf.length).toBeGreaterThanOrEqual(2);
      // DAMAGE: the delete people use (observed archives the row and its sub-records; spec deletes
      // the row and archives its sub-records), a row without sub-records, one sub-record alone
      for (const id of [parent, plain, sub]) await call(h, 'DELETE', `/records/${id}`);
      await syncAfterDamage(h, { full: true });

      const r = await runRollback(h, { moduleId: b.mod, toSnapshot: b.s1, pauseAutomations: true });
      expect(r.notRestored).toEqual([]);
      expect(r.conflicts).toEqual([]);
      expect(await leftOver(b, r.runId)).toEqual([]);
      const after = await readModule(h.emu, b.mod);
      const map = idMapOf(h.store.db, r.runId!);
      // the sub-record archived at the snapshot is there, archived, under the parent that came back
      const sub0 = after.archived.find((x) => x.id === (map.get(archivedSub) ?? archivedSub));
      expect(sub0?.fields).toMatchObject({ isArchived: true, parentRecord: map.get(parent) ?? parent });
    });
  });

  it('--kinds without records leaves deleted rows as they are, and says how to bring them back', async () => {
    const b = await board(dialect, 'Product Roadmap');
    await closing(b, async () => {
      const plain = b.rec('Dark mode');
      await call(b.h, 'DELETE', `/records/${plain}`);
      await syncAfterDamage(b.h, { full: true });
      const r = await runRollback(b.h, { moduleId: b.mod, toSnapshot: b.s1, kinds: ['cells'] });
      expect(r.notRestored.map((n) => [n.id, n.reason])).toEqual([[plain, `deleted since the snapshot (--kinds leaves records out): bring it back with wbsync restore records ${plain}`]]);
    });
  });

  it('3. a deleted relation column comes back and the reference columns going through it resolve again', async () => {
    const b = await board(dialect, 'Product Roadmap');
    await closing(b, async () => {
      const { h } = b;
      const customer = b.col('Customer');
      const refs = [b.col('Customer value'), b.col('Customer stage')];
      const before = await readReferences(h.emu, b.mod);
      expect(Object.values(before).some((cols) => refs.some((c) => (cols[c]?.display ?? '') !== ''))).toBe(true);
      // DAMAGE
      await call(h, 'DELETE', `/columns/${customer}`);
      await syncAfterDamage(h);

      const r = await runRollback(h, { moduleId: b.mod, toSnapshot: b.s1, pauseAutomations: true });
      expect(r.notRestored).toEqual([]);
      expect(await leftOver(b, r.runId)).toEqual([]);
      const map = invertIdMap(idMapOf(h.store.db, r.runId!));
      expect(await readReferences(h.emu, b.mod, map)).toEqual(before);
      expect(await deadIdsIn(h.emu, b.mod, b.good)).toEqual([]);
      // what each reference column went through: re-pointed in place or made anew (settings are
      // create-only in the published interface; the deployed service takes them on update)
      expect(r.repointed.columns.map((c) => c.id).sort()).toEqual([...refs].sort());
      for (const c of r.repointed.columns) expect(c.how).toBe(dialect === 'observed' ? 're-pointed' : 'recreated');
    });
  });

  it('4. automations (module and workspace) naming a deleted column and collection are re-pointed to the copies', async () => {
    let moduleAutomation = '';
    let workspaceAutomation = '';
    const b = await board(dialect, 'Product Roadmap', async (x) => {
      const effort = x.col('Effort');
      const later = x.coll('Later');
      moduleAutomation = (
        await call(x.h, 'POST', `/automations/${x.mod}`, {
          name: 'Big effort goes later',
          trigger: { type: 'column_changed', column: effort },
          conditions: [{ source: 'column', column: effort, field: 'value', op: 'greater_than', value: '50' }],
          match: 'all',
          actions: [{ type: 'move_to_collection', collectionName: later }],
        }, 'automation')
      )._id;
      workspaceAutomation = (
        await call(x.h, 'POST', `/automations/workspace/${x.ws}`, {
          name: 'Done goes later',
          trigger: { type: 'record_completed' },
          conditions: [],
          match: 'all',
          actions: [{ type: 'move_to_collection', collectionName: later }],
          isActive: false,
        }, 'automation')
      )._id;
    });
    await closing(b, async () => {
      const { h } = b;
      await call(h, 'DELETE', `/columns/${b.col('Effort')}`);
      await call(h, 'DELETE', `/collections/${b.coll('Later')}`);
      await syncAfterDamage(h, { full: true });
      const r = await runRollback(h, { moduleId: b.mod, toSnapshot: b.s1, pauseAutomations: true });
      expect(r.notRestored).toEqual([]);
      expect(await deadIdsIn(h.emu, b.mod, b.good)).toEqual([]);
      expect(await leftOver(b, r.runId)).toEqual([]);
      expect(r.repointed.automations.map((a) => a.id).sort()).toEqual([moduleAutomation, workspaceAutomation].sort());
      // the workspace automation stays off (it was off), the module one on
      const autos = dumpOf(h.emu).automations;
      expect(autos.find((a) => a._id === workspaceAutomation)?.isActive).toBe(false);
      expect(autos.find((a) => a._id === moduleAutomation)?.isActive).toBe(true);
      const res = await api(h.emu, 'GET', `/automations/${b.mod}`);
      expect(res.status).toBe(200);
    });
  });
});

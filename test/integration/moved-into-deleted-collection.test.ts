// Regression (restore-property, observed, seed 4242 round 4): a record moved into a collection that
// is then deleted, both between two backups. The service keeps the record, in the deleted
// collection, where nobody can see it; its feed row for the move answers the deleted collection as
// null. Passes took the null for "the row says nothing", kept the record in the collection it left,
// and — no listing showing it — read it by id and stored it as an archived record there; a restore
// of the module then brought back a record nobody saw before the damage. A move into a collection
// that is gone leaves the record unreachable: the backup marks it gone, as it does a record whose
// collection it saw deleted.

import { afterEach, describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { api, apiOk, makeHarness, newBoard, view, type Harness } from '../helpers/harness.js';
import { syncBoth, viewDiff } from '../helpers/random-writes.js';

describe.each(['spec', 'observed'] as Dialect[])('a record moved into a collection deleted since (%s dialect)', (dialect) => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('is not kept where it was: the incremental and the full pass both mark it gone, and agree', async () => {
    h = await makeHarness(dialect, { seed: 'none' });
    const { mod, cols: [now, next] } = await newBoard(h.emu, 'Moves', ['Now', 'Next']);
    const moved = await apiOk(h.emu, 'POST', `/records/${now!._id}`, { name: 'Moved away' }, 'record');
    const stays = await apiOk(h.emu, 'POST', `/records/${now!._id}`, { name: 'Stays' }, 'record');
    const full = h.openOther('full');
    expect((await h.sync()).failures).toEqual([]);
    expect((await full.sync({ full: true })).failures).toEqual([]);

    h.emu.clock.advance(1000);
    await apiOk(h.emu, 'PUT', `/records/${moved._id}`, { collectionName: next!._id }, 'record');
    h.emu.clock.advance(1000);
    expect((await api(h.emu, 'DELETE', `/collections/${next!._id}`)).status).toBe(200);
    h.emu.clock.advance(1000);
    await syncBoth(h, full);

    // the service keeps the record, in the deleted collection (nobody sees it)
    const truth = (await h.target.dump()).records.find((r) => r._id === moved._id);
    if (truth) expect(truth.collectionName).toBe(next!._id);
    for (const db of [h.store, full.store]) {
      const current = view(db, 'records', 'WHERE module_id = ?', [mod._id]).map((r) => r.name as string);
      expect(current, db.path).toEqual(['Stays']);
    }
    expect(viewDiff(h.store, full.store, ['records', 'collections'])).toEqual([]);
    void stays;
  });
});

// Regression (live differential runs, seeds 62903 and 84127): the deployed service stamps a record's
// `updatedAt` in the update and logs the row two writes later, so when several renames of one
// record race (four sent in one millisecond), a row describing an EARLIER rename can carry a time
// later than the version the listing then showed. Once the record is archived (the deployed
// service logs no row for that), a pass takes its name from the stored version brought up to
// date by the feed: a full pass over the backup re-read every row and took the late-logged one as
// newer, and stored a name the record never had last. A row this backup stored when it read the
// version is not newer than that version.
//
// The emulator logs a row in the same millisecond as the update, so the service's stamp-before-log
// is reproduced by moving the stored version's `updatedAt` 1 ms back, as the service would have.

import { afterEach, describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { apiOk, makeHarness, newBoard, view, type Harness } from '../helpers/harness.js';
import { syncBoth } from '../helpers/random-writes.js';

type Doc = Record<string, any>;

const current = (h: Harness, db: Harness['store'], id: string): Doc | undefined =>
  view(db, 'records', 'WHERE id = ?', [id])[0];

describe.each(['spec', 'observed'] as Dialect[])('an archived record keeps the name its last listing showed (%s dialect)', (dialect) => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('renames racing in one millisecond, the record archived later: a full pass and an incremental one agree on the last name', async () => {
    h = await makeHarness(dialect, { seed: 'none' });
    const { cols: [col] } = await newBoard(h.emu, 'Race', ['Group']);
    const rec = await apiOk(h.emu, 'POST', `/records/${col!._id}`, { name: 'Before' }, 'record');
    const full = h.openOther('full');
    expect((await h.sync()).failures).toEqual([]);
    expect((await full.sync({ full: true })).failures).toEqual([]);

    // two renames in one millisecond: applied "Zulu" then "Alpha"; a row time ties, and the trace
    // breaks ties by name, so the row of "Zulu" reads as the newest
    h.emu.clock.advance(1000);
    h.emu.clock.freeze();
    await apiOk(h.emu, 'PUT', `/records/${rec._id}`, { name: 'Zulu' }, 'record');
    await apiOk(h.emu, 'PUT', `/records/${rec._id}`, { name: 'Alpha' }, 'record');
    h.emu.clock.unfreeze();
    h.emu.clock.advance(1000);
    await syncBoth(h, full);
    for (const db of [h.store, full.store]) {
      expect(current(h, db, rec._id)).toMatchObject({ name: 'Alpha', is_archived: 0 });
      // the service stamped the version before it logged the rows
      db.db.prepare(`UPDATE record_versions SET updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', updated_at, '-0.001 seconds') WHERE id = ? AND valid_to IS NULL`).run(rec._id);
    }

    h.emu.clock.advance(1000);
    await apiOk(h.emu, 'PUT', `/records/${rec._id}`, { isArchived: true }, 'record');
    h.emu.clock.advance(1000);
    await syncBoth(h, full);
    expect(current(h, full.store, rec._id), 'the full pass').toMatchObject({ name: 'Alpha', is_archived: 1 });
    expect(current(h, h.store, rec._id), 'the incremental pass').toMatchObject({ name: 'Alpha', is_archived: 1 });
  });
});

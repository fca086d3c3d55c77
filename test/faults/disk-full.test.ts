// The database hits SQLITE_FULL mid-pass (max_page_count just above its size): the pass fails with
// a storage error saying the disk is full, the batch rolls back, the store verifies and the
// earlier data is intact; once the limit is raised the next sync completes.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWbsyncError, type WbsyncError } from '../../src/domain/errors.js';
import type { Dialect } from '../../src/emulator/types.js';
import { api, makeHarness, view, type Harness } from '../helpers/harness.js';

function pages(h: Harness): number {
  return h.store.db.pragma('page_count', { simple: true }) as number;
}

describe.each(['spec', 'observed'] as Dialect[])('database full (%s dialect)', (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await makeHarness(dialect, { randomSeed: 5 });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('fails the pass with a clear storage error, rolls back, then recovers', async () => {
    const first = await h.sync({ full: true });
    expect(first.status).toBe('complete');
    const recordsBefore = view(h.store, 'records');
    const cellsBefore = view(h.store, 'cells');
    const snapsBefore = h.store.listSnapshots().length;

    // enough new data that the next pass must grow the file by many pages
    const dump = h.emu.dump();
    const recs = dump.records.filter((r) => !r.isDeleted && !r.isArchived && !r.parentRecord) as Array<{ _id: string }>;
    for (const r of recs.slice(0, 30)) {
      expect((await api(h.emu, 'PUT', `/records/${r._id}`, { name: `renamed ${'x'.repeat(3000)} ${r._id}` })).status).toBe(200);
    }
    await h.emu.idle();

    h.store.db.pragma('wal_checkpoint(TRUNCATE)');
    const limit = pages(h) + 4;
    h.store.db.pragma(`max_page_count = ${limit}`);

    let err: unknown;
    try {
      await h.sync({ full: true });
    } catch (e) {
      err = e;
    }
    expect(isWbsyncError(err), String(err)).toBe(true);
    const we = err as WbsyncError;
    expect(we.code).toBe('storage');
    expect(we.message).toMatch(/^writing batch of snapshot \d+ \(rolled back\): database or disk is full$/);
    expect(we.hint).toMatch(/disk full: nothing from this batch was written/);
    expect(we.details?.sqliteCode).toBe('SQLITE_FULL');

    // rolled back: the views (latest complete snapshot) are unchanged, no half batch is visible
    expect(view(h.store, 'records')).toEqual(recordsBefore);
    expect(view(h.store, 'cells')).toEqual(cellsBefore);
    expect(h.store.db.prepare(`SELECT COUNT(*) AS n FROM record_versions WHERE name LIKE 'renamed %'`).get()).toEqual({ n: 0 });
    const report = h.store.verify();
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);
    const snaps = h.store.listSnapshots();
    expect(snaps.length).toBe(snapsBefore + 1);
    // the failed pass could still mark its snapshot failed (that update needs no new page)
    expect(snaps.at(-1)!.status).toBe('failed');

    // room again: the next pass completes and takes the changes
    h.store.db.pragma('max_page_count = 1073741823');
    const healed = await h.sync({ full: true });
    expect(healed.status).toBe('complete');
    expect(healed.failures).toEqual([]);
    expect(healed.counts.record).toBeGreaterThanOrEqual(30);
    expect(view(h.store, 'records', 'WHERE id = ?', [recs[0]!._id])[0]?.name).toMatch(/^renamed x{3000} /);
    expect(h.store.verify().problems).toEqual([]);
    expect(h.store.listSnapshots().filter((s) => s.status === 'running')).toEqual([]);
  });
});

// A first fill's deferred indexes come back with the feed's last batch (issue 37, sixth and twelfth
// rounds): a full pass reads the feed beside the module crawl, so the activity and cell tables'
// indexes are built while the crawl may still run instead of on the pass's tail; cells written
// after it are inserted with their indexes in place. The pass's last batch builds whatever is left;
// whatever the order, the pass ends with the migrations' indexes, and the cells' indexes agree with
// the table.

import { afterEach, describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import type { WriteBatch } from '../../src/store/port.js';
import { deferredIndexes } from '../../src/store/write/bulk-fill.js';
import { makeHarness, type Harness } from '../helpers/harness.js';

const indexNames = (h: Harness): string[] =>
  (h.store.db.prepare(`SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY name`).all() as Array<{ name: string }>).map((r) => r.name);

describe.each(['spec', 'observed'] as Dialect[])('a first fill\'s feed indexes (%s dialect)', (dialect) => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('are built by the feed\'s last batch, with no feed row written after it', async () => {
    h = await makeHarness(dialect);
    const seen: Array<{ activity: number; cells: number; back: WriteBatch['indexesBack']; deferredAfter: string[] }> = [];
    const apply = h.store.apply.bind(h.store);
    h.store.apply = async (snapshot, batch) => {
      const r = await apply(snapshot, batch);
      seen.push({
        activity: batch.upserts?.activity?.length ?? 0,
        cells: batch.upserts?.cells?.length ?? 0,
        back: batch.indexesBack,
        deferredAfter: deferredIndexes(h!.store.db).map((d) => d.tbl_name),
      });
      return r;
    };

    const pass = await h.sync({ full: true });
    expect(pass.failures).toEqual([]);
    expect(pass.counts.activity).toBeGreaterThan(0);
    const feedBack = seen.findIndex((b) => Array.isArray(b.back) && b.back.includes('activity'));
    expect(feedBack).toBeGreaterThanOrEqual(0);
    // the feed's rows are all written by then, and that batch built the activity and cell tables' indexes
    expect(seen.slice(feedBack + 1).filter((b) => b.activity > 0)).toEqual([]);
    expect(seen[feedBack]!.back).toEqual(['activity', 'cell']);
    expect(seen[feedBack]!.deferredAfter).toEqual([]);
    // cells still came after it, written with their indexes in place
    expect(seen.slice(feedBack + 1).reduce((n, b) => n + b.cells, 0)).toBeGreaterThan(0);
    // the pass's last batch builds the rest
    expect(seen.at(-1)!.back).toBe(true);
    expect(seen.at(-1)!.deferredAfter).toEqual([]);
    // and the pass ends with every index the migrations define, each agreeing with its table
    const again = await makeHarness(dialect, { seed: 'none' });
    try {
      expect(indexNames(h)).toEqual(indexNames(again));
    } finally {
      await again.close();
    }
    expect(h.store.db.pragma('integrity_check', { simple: true })).toBe('ok');
  });
});

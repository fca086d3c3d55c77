// The console's recover previews read less for speed (store/read/module-window.ts: the module without
// the cells' raw bodies; for a rollback only the cells that differ between the two snapshots; the
// cells of plain columns counted in SQL, store/read/module-census.ts). They must plan exactly what the
// planners plan from the whole modules: after random writes (deleted columns, collections, records
// and notes among them) in both dialects, every module, every earlier snapshot, both scopes —
// compared with the previews built the slow way, the rollback's fields put back as a first page
// (of several sizes, so that planned and counted cells interleave at its end) and a total.

import { afterEach, describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { previewRecover } from '../../src/ui/recover-plan.js';
import { makeHarness, type Harness } from '../helpers/harness.js';
import { Writer, prng } from '../helpers/random-writes.js';
import { ATTRIBUTION, shownPreview as shown, slowPreview, type Shown } from '../helpers/slow-preview.js';

/** The slow preview as the page lists it: the first `listed` fields put back. */
const firstPage = (p: Shown, listed: number): Shown => ({ ...p, writes: p.writes.slice(0, listed) });
const PAGES = [1, 3, 200];

describe.each(['spec', 'observed'] as Dialect[])('recover previews plan what the whole modules plan (%s dialect)', (dialect) => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it.each([11, 29])('seed %i', { timeout: 240_000 }, async (seed) => {
    h = await makeHarness(dialect, { randomSeed: seed });
    expect((await h.sync({ full: true })).status).toBe('complete');
    const w = new Writer(h.emu, prng(seed), dialect, 36);
    for (let pass = 0; pass < 6; pass++) {
      for (let i = 0; i < 6; i++) await w.randomWrite();
      h.emu.clock.advance(1000);
      expect((await h.sync({ full: pass % 3 === 2 })).status).toBe('complete');
    }
    const store = h.store;
    const latest = store.latestCompleteSnapshot()!;
    let compared = 0;
    let withWrites = 0;
    const seen = new Set<string>();
    for (const m of store.stateAt(latest)!.modules()) {
      for (const s of store.snapshotsHolding('module', m.id).filter((n) => n < latest)) {
        for (const scope of ['module', 'rollback'] as const) {
          const slow = slowPreview(store, m.id, s, scope);
          let fast = previewRecover(store, { moduleId: m.id, snapshot: s, scope, attribution: ATTRIBUTION });
          for (const listed of PAGES) {
            fast = previewRecover(store, { moduleId: m.id, snapshot: s, scope, attribution: ATTRIBUTION, listed });
            expect(shown(fast), `${w.reproducer(seed)}\nmodule ${m.id} snapshot ${s} ${scope} listed ${listed}`).toEqual(firstPage(slow, listed));
          }
          compared++;
          if (fast.writeCount) withWrites++;
          for (const [k, n] of Object.entries(fast.counts)) if (n > 0) seen.add(`${scope}:${k}`);
        }
        // one column's rollback too
        const col = store.stateAt(s)!.columns(m.id)[0];
        if (col) {
          const slow = slowPreview(store, m.id, s, 'rollback', col.id);
          for (const listed of PAGES) {
            const fast = previewRecover(store, { moduleId: m.id, snapshot: s, scope: 'rollback', columnId: col.id, attribution: ATTRIBUTION, listed });
            expect(shown(fast)).toEqual(firstPage(slow, listed));
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(10);
    expect(withWrites).toBeGreaterThan(2);
    // what the random writes made the rollbacks do: cells, records and recreated structure
    expect([...seen].filter((k) => k.startsWith('rollback:')).length, [...seen].join(' ')).toBeGreaterThan(3);
  });
});

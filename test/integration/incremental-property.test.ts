// The core correctness test: after a random series of writes of every kind, an incremental pass
// into one database and a full pass into another must leave identical views.

import { afterEach, describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { makeHarness, view, type Harness } from '../helpers/harness.js';
import { Writer, prng, syncBoth, viewDiff } from '../helpers/random-writes.js';

describe.each(['spec', 'observed'] as Dialect[])('incremental equals full (%s dialect)', (dialect) => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it.each([11, 29])('after random writes with seed %i', async (seed) => {
    h = await makeHarness(dialect, { randomSeed: seed });
    const full = h.openOther('full');
    // Same baseline for both: a record archived later is then known to both (kept, is_archived = 1)
    expect((await h.sync()).kind).toBe('full');
    await full.sync({ full: true });
    const w = new Writer(h.emu, prng(seed), dialect);
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 25; i++) {
        await w.randomWrite();
        h.emu.clock.advance(1000);
      }
      if (round === 2) await w.deleteModule();
      await syncBoth(h, full);
      const diff = viewDiff(h.store, full.store);
      expect(diff, `round ${round}; writes:\n${w.applied.slice(-30).join('\n')}`).toEqual([]);
    }
    expect(w.applied.length).toBeGreaterThan(50);
    expect(view(h.store, 'resolved_references').length).toBeGreaterThan(0);
  });

  it('falls back to a full pass after the feed expired, and still matches', async () => {
    h = await makeHarness(dialect, { randomSeed: 5 });
    const full = h.openOther('full');
    await h.sync();
    // both databases have seen the feed before it expires: our history keeps what the service drops
    await full.sync({ full: true });
    const w = new Writer(h.emu, prng(5), dialect);
    for (let i = 0; i < 10; i++) await w.randomWrite();
    // everything since the cursor ages past the 90-day retention and is deleted by the service
    h.emu.clock.advance(200 * 86_400_000);
    await w.randomWrite();
    await h.emu.idle();
    const inc = await h.sync();
    expect(inc.workspaces[0].mode).toBe('full');
    expect(inc.workspaces[0].fallback).toMatch(/retention|no longer reaches/);
    await full.sync({ full: true });
    expect(viewDiff(h.store, full.store)).toEqual([]);
  });
});

// With a person and a record in the erasure ledger, incremental passes and full passes over the
// same random writes must still agree view for view, and neither database may take an erased
// string back in (the gate scrubs both alike: a scrubbed row hashes the same whichever pass met it).

import { afterEach, describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { erase } from '../../src/store/erasure/index.js';
import { makeHarness, type Harness } from '../helpers/harness.js';
import { foundIn } from '../helpers/erase-kit.js';
import { VIEWS, Writer, prng, syncBoth, viewDiff } from '../helpers/random-writes.js';

const STEPS = Number(process.env.WBSYNC_ERASE_PROPERTY_STEPS ?? 40);

describe.each(['spec', 'observed'] as Dialect[])('erased, incremental equals full (%s dialect)', (dialect) => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('keeps agreeing, and keeps the erased out of both', { timeout: STEPS * 1500 + 60_000 }, async () => {
    h = await makeHarness(dialect, { randomSeed: 31 });
    const full = h.openOther('full');
    expect((await h.sync()).kind).toBe('full');
    await full.sync({ full: true });
    const g = h.store.db.prepare(`SELECT user_id, first_name, last_name, email FROM members WHERE first_name = 'Grace'`).get() as { user_id: string; first_name: string; last_name: string; email: string };
    const record = h.store.db.prepare(`SELECT id FROM records WHERE parent_record_id IS NULL ORDER BY id LIMIT 1 OFFSET 3`).pluck().get() as string;
    const targets = [{ kind: 'user' as const, id: g.user_id }, { kind: 'record' as const, id: record }];
    for (const s of [h.store, full.store]) expect(erase(s.db, { targets, dryRun: false, reason: null, now: () => new Date() }).complete).toBe(true);
    const gone = [g.email, `${g.first_name} ${g.last_name}`, g.last_name, `@${g.first_name} `];
    const w = new Writer(h.emu, prng(31), dialect);
    const views = dialect === 'observed' ? VIEWS.filter((v) => v !== 'automations') : VIEWS;
    for (let step = 0; step < STEPS; step++) {
      await w.randomWrite();
      h.emu.clock.advance(1000);
      await syncBoth(h, full);
      expect(viewDiff(h.store, full.store, views), `step ${step}; reproducer — ${w.reproducer(31)}`).toEqual([]);
      if (step % 10 === 9 || step === STEPS - 1) {
        expect(foundIn(h.dbPath, gone), `incremental database, step ${step}`).toEqual([]);
        expect(h.store.db.prepare('SELECT count(*) FROM record_versions WHERE id = ?').pluck().get(record)).toBe(0);
        expect(full.store.db.prepare('SELECT count(*) FROM member_versions WHERE user_id = ?').pluck().get(g.user_id)).toBe(0);
      }
    }
  });
});

import { it } from 'vitest';
import fs from 'node:fs';
import { makeHarness } from '../helpers/harness.js';
import { Writer, prng } from '../helpers/random-writes.js';
it('explore', { timeout: 120000 }, async () => {
  for (const dialect of ['spec', 'observed'] as const) {
  const h = await makeHarness(dialect, { randomSeed: 5 });
  await h.sync();
  const w = new Writer(h.emu, prng(5), dialect);
  for (let r = 0; r < 20; r++) { for (let i = 0; i < 6; i++) await w.randomWrite(); h.emu.clock.advance(60000); await h.emu.idle(); await h.sync({ full: r % 5 === 4 }); }
  h.store.close();
  fs.copyFileSync(h.dbPath, `/tmp/e23/demo-${dialect}.db`);
  await h.close();
  }
});

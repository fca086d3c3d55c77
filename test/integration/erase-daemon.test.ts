// An erasure made beside a running daemon stops short of the file rewrite (the daemon holds the
// lock); the daemon finishes it after its next full pass — the ledger says complete and the file
// and its WAL no longer hold the erased bytes — and an incremental pass leaves it alone. Both dialects.

import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Notifier } from '../../src/alerts/notifier.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { createPassHooks } from '../../src/daemon/pass-hooks.js';
import type { Dialect } from '../../src/emulator/types.js';
import { erase } from '../../src/store/erasure/index.js';
import { makeHarness, silentLogger, type Harness } from '../helpers/harness.js';

/** The file and its WAL as raw bytes, searched for a string. */
function inFile(dbPath: string, s: string): boolean {
  const needle = Buffer.from(s, 'utf8');
  return [dbPath, `${dbPath}-wal`].some((f) => fs.existsSync(f) && fs.readFileSync(f).includes(needle));
}

describe.each(['spec', 'observed'] as Dialect[])('erasure finished by the daemon (%s dialect)', (dialect) => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('completes an erasure a daemon lock left running, after a full pass only', { timeout: 60_000 }, async () => {
    h = await makeHarness(dialect);
    const first = await h.sync();
    const db = h.store.db;
    // a record name only this record carries, so its bytes can be looked for in the file
    const rec = db
      .prepare(`SELECT r.id, r.name FROM records r WHERE r.parent_record_id IS NULL AND length(r.name) >= 8 AND (SELECT count(*) FROM record_versions v WHERE instr(v.raw, r.name) > 0) = (SELECT count(*) FROM record_versions v WHERE v.id = r.id) AND NOT EXISTS (SELECT 1 FROM activity_versions a WHERE instr(a.raw, r.name) > 0 AND coalesce(a.record_id, '') <> r.id) LIMIT 1`)
      .get() as { id: string; name: string };
    expect(rec).toBeDefined();
    expect(inFile(h.dbPath, rec.name)).toBe(true);

    const res = erase(db, { targets: [{ kind: 'record', id: rec.id }], dryRun: false, reason: null, now: () => new Date(), exclusive: () => ({ heldBy: 'pid 4242', release: () => undefined }) });
    expect(res).toMatchObject({ complete: false, note: expect.stringContaining('daemon') });
    const status = (): string => db.prepare('SELECT status FROM erasures WHERE entity_id = ?').pluck().get(rec.id) as string;
    expect(status()).toBe('running');
    expect(db.prepare('SELECT count(*) FROM record_versions WHERE id = ?').pluck().get(rec.id)).toBe(0);

    const config = ConfigSchema.parse({});
    const notifier = new Notifier({ webhooks: [], database: h.dbPath, timeoutMs: 1000, logger: silentLogger });
    const ops = createPassHooks({ store: h.store, config, logger: silentLogger, notifier, now: () => new Date() });

    // an incremental pass leaves the file rewrite for a full one (VACUUM is not for every 5 minutes)
    const inc = await h.sync();
    ops.passSucceeded(inc);
    expect(status()).toBe('running');

    const full = await h.sync({ full: true });
    expect(full.snapshot).toBeGreaterThan(first.snapshot);
    ops.passSucceeded(full);
    expect(status()).toBe('complete');
    expect(inFile(h.dbPath, rec.name)).toBe(false);
    expect(h.store.verify()).toMatchObject({ ok: true });
    // nothing left to do: the next full pass does not rewrite the file again
    const finished = db.prepare('SELECT finished_at FROM erasures WHERE entity_id = ?').pluck().get(rec.id);
    ops.passSucceeded(await h.sync({ full: true }));
    expect(db.prepare('SELECT finished_at FROM erasures WHERE entity_id = ?').pluck().get(rec.id)).toBe(finished);
    await ops.idle();
  });
});

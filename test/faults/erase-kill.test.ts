// kill -9 in the middle of `wbsync erase` (a child process erasing one row range per transaction,
// killed after some of them): the database verifies clean (a warning names the unfinished erasure),
// the ledger holds it as running so syncs already keep it out, and the same erasure run again
// completes it — to exactly what an uninterrupted erasure of a copy gives, with no erased byte left.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { erase } from '../../src/store/erasure/index.js';
import { openStore } from '../../src/store/index.js';
import { requireBuild } from '../helpers/fault-kit.js';
import { makeHarness, type Harness } from '../helpers/harness.js';
import { VIEWS } from '../helpers/random-writes.js';
import { buildHistory, foundIn } from '../helpers/erase-kit.js';

function views(file: string): Record<string, string[]> {
  const s = openStore(file, { readonly: true });
  try {
    return Object.fromEntries(VIEWS.map((v) => [v, (s.db.prepare(`SELECT * FROM ${v}`).all() as unknown[]).map((r) => JSON.stringify(r)).sort()]));
  } finally {
    s.close();
  }
}

describe('erase killed half-way', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  // killed while activity rows (which quote the person's notes) are rewritten, and later, while the
  // notes themselves are: the re-run must still find every quote
  it.each(['activity', 'amendment'] as const)('killed inside the %s rewrite: verify accepts it; the same erasure run again completes it', { timeout: 180_000 }, async (table) => {
    requireBuild();
    h = await makeHarness('spec', { randomSeed: 11 });
    await buildHistory(h, 'spec', 11, 12);
    const db = h.store.db;
    const g = db.prepare(`SELECT user_id, last_name, email FROM member_versions WHERE first_name = 'Grace' LIMIT 1`).get() as { user_id: string; last_name: string; email: string };
    const gone = [g.email, g.last_name, ...(db.prepare('SELECT DISTINCT message FROM amendment_versions WHERE user_id = ? AND length(message) >= 12').pluck().all(g.user_id) as string[])];
    const target = { kind: 'user' as const, id: g.user_id };

    // the reference: an uninterrupted erasure of a copy
    const copy = path.join(h.dir, 'reference.db');
    db.prepare('VACUUM INTO ?').run(copy);
    const ref = openStore(copy);
    erase(ref.db, { targets: [target], dryRun: false, reason: null, now: () => new Date() });
    ref.close();

    const script = path.join(h.dir, 'erase-child.mjs');
    fs.writeFileSync(
      script,
      `import Database from ${JSON.stringify(createRequire(import.meta.url).resolve('better-sqlite3'))};
       import { erase } from ${JSON.stringify(path.resolve('dist/store/erasure/erase.js'))};
       const db = new Database(process.argv[2]);
       db.pragma('busy_timeout = 5000'); db.pragma('foreign_keys = ON');
       const run = db.transaction;
       const pause = () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 30);
       db.transaction = (fn) => { const t = run.call(db, fn); const wrap = () => { const r = t(); process.stdout.write('chunk\\n'); pause(); return r; }; wrap.immediate = () => { const r = t.immediate(); process.stdout.write('chunk\\n'); pause(); return r; }; return wrap; };
       erase(db, { targets: [${JSON.stringify(target)}], dryRun: false, reason: 'killed', now: () => new Date(), chunk: 3 });
       process.stdout.write('done\\n');`,
    );
    // the child pauses after each transaction: the kill lands where the database shows it is
    const erasedNotes = (): number => db.prepare(`SELECT count(*) FROM amendment_versions WHERE message = '[erased]'`).pluck().get() as number;
    const due = (n: number): boolean => (table === 'activity' ? n === 5 : erasedNotes() > 0);
    const child = spawn(process.execPath, [script, h.dbPath], { stdio: ['ignore', 'pipe', 'inherit'] });
    let chunks = 0;
    let done = false;
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (b: Buffer) => {
        for (const line of b.toString().split('\n')) {
          if (line === 'chunk' && due(++chunks) && !child.killed) child.kill('SIGKILL');
          if (line === 'done') done = true;
        }
      });
      child.on('exit', () => resolve());
    });
    expect(done, 'the child was killed before it finished').toBe(false);
    expect(chunks).toBeGreaterThanOrEqual(5);

    // half-way: consistent, the erasure written down as running, verify says how to finish
    const report = h.store.verify();
    expect(report).toMatchObject({ ok: true, problems: [] });
    expect(report.warnings).toContainEqual(expect.objectContaining({ check: 'erasures', message: expect.stringContaining(`wbsync erase --user ${g.user_id}`) }));
    expect(db.prepare('SELECT status FROM erasures').pluck().all()).toEqual(['running']);
    // some rows already rewritten, not all (the kill came inside the rewrite)
    const summary = `%"user":{"_id":"${g.user_id}"}%`;
    expect(db.prepare('SELECT count(*) FROM activity_versions WHERE raw LIKE ?').pluck().get(summary)).toBeGreaterThan(0);
    if (table === 'activity') expect(erasedNotes()).toBe(0);
    else expect(erasedNotes()).toBeGreaterThan(0);
    expect(db.prepare('SELECT count(*) FROM member_versions WHERE user_id = ?').pluck().get(g.user_id)).toBeGreaterThan(0);

    const res = erase(db, { targets: [target], dryRun: false, reason: 'killed', now: () => new Date() });
    expect(res.complete).toBe(true);
    expect(db.prepare('SELECT status FROM erasures').pluck().all()).toEqual(['complete']);
    expect(h.store.verify()).toMatchObject({ ok: true, problems: [], warnings: [] });
    expect(foundIn(h.dbPath, gone)).toEqual([]);
    expect(views(h.dbPath)).toEqual(views(copy));
  });
});

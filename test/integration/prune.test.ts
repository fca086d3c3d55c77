// Retention: forgetting snapshots must not change what any kept snapshot shows. A history built by
// random writes and passes (incremental and full), spread over days; a restic-style policy; then
// for every kept snapshot the export (every view, row by row) is identical before and after, a diff
// between two kept snapshots is unchanged, verify passes, the search index agrees, the file
// shrinks. A prune killed half-way (kill -9, in a child process) leaves a database verify accepts,
// and the next prune finishes the job with the same result.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { holdSnapshot } from '../../src/store/retention/index.js';
import { prune } from '../../src/store/retention/index.js';
import { runDiff } from '../../src/restore/index.js';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/port.js';
import { makeHarness, view, type Harness } from '../helpers/harness.js';
import { VIEWS, Writer, prng } from '../helpers/random-writes.js';

const DAY = 86_400_000;
const T0 = Date.parse('2026-09-01T06:00:00.000Z');

/** A history: a full pass, then rounds of random writes and passes (every fifth one full). */
async function buildHistory(h: Harness, dialect: Dialect, seed: number, rounds: number): Promise<void> {
  await h.sync();
  const w = new Writer(h.emu, prng(seed), dialect);
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < 6; i++) await w.randomWrite();
    h.emu.clock.advance(60_000);
    await h.emu.idle();
    const pass = await h.sync({ full: r % 5 === 4 });
    expect(pass.failures).toEqual([]);
  }
  // spread the passes over the days (every 9 hours): what a daemon would have left
  const ids = h.store.db.prepare('SELECT id FROM snapshot_runs ORDER BY id').pluck().all() as number[];
  const set = h.store.db.prepare('UPDATE snapshot_runs SET started_at = ?, finished_at = ? WHERE id = ?');
  ids.forEach((id, i) => set.run(new Date(T0 + i * 9 * 3_600_000).toISOString(), new Date(T0 + i * 9 * 3_600_000 + 60_000).toISOString(), id));
}

/** Every view of the export of snapshot `id`, rows sorted: what that snapshot shows. */
async function shows(store: Store, dir: string, id: number): Promise<Record<string, string[]>> {
  const file = path.join(dir, `export-${id}-${Math.random().toString(36).slice(2)}.db`);
  await store.exportTo(file, id);
  const copy = openStore(file, { readonly: true });
  try {
    return Object.fromEntries(VIEWS.map((v) => [v, view(copy, v).map((r) => JSON.stringify(r)).sort()]));
  } finally {
    copy.close();
    fs.rmSync(file, { force: true });
  }
}

const searchRows = (store: Store): string[] => (store.db.prepare('SELECT rowid, kind, entity_id, record_id, module_id, text FROM search').all() as unknown[]).map((r) => JSON.stringify(r)).sort();
const snapshotIds = (store: Store): number[] => store.listSnapshots().map((s) => s.id);
const NOW = (store: Store): Date => new Date(Date.parse(store.listSnapshots().at(-1)!.startedAt) + 3_600_000);

describe.each(['spec', 'observed'] as Dialect[])('prune (%s dialect)', (dialect) => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('forgets what the policy does not keep, and every kept snapshot shows exactly what it showed', { timeout: 120_000 }, async () => {
    h = await makeHarness(dialect, { randomSeed: 41 });
    await buildHistory(h, dialect, 41, 24);
    const store = h.store;
    const all = snapshotIds(store);
    const now = NOW(store);
    const policy = { keepLast: 2, keepDaily: 3, keepWeekly: 2 };

    const dry = prune(store.db, { policy, now, dryRun: true });
    expect(snapshotIds(store)).toEqual(all); // a dry run writes nothing
    const kept = dry.keep.map((k) => k.id).sort((a, b) => a - b);
    expect(dry.forget.length).toBeGreaterThan(10);
    expect(kept).toContain(all.at(-1)); // never the latest
    expect(new Set([...kept, ...dry.forget.map((f) => f.id)])).toEqual(new Set(all));

    const before = new Map<number, Record<string, string[]>>();
    for (const id of kept) before.set(id, await shows(store, h.dir, id));
    const [a, b] = [kept[0]!, kept[kept.length - 2]!];
    const diffBefore = await runDiff({ store }, { snapshotId: a, against: b, attribution: '' });
    const searchBefore = searchRows(store);
    // the history lives in the WAL until a checkpoint (every 16,000 pages): fold it in, then measure
    store.db.pragma('wal_checkpoint(TRUNCATE)');
    const sizeBefore = fs.statSync(h.dbPath).size;

    const res = prune(store.db, { policy, now });
    expect(res.forget.map((f) => f.id)).toEqual(dry.forget.map((f) => f.id));
    expect(res.rows).toEqual(dry.rows); // the dry run said exactly which version rows go
    expect(Object.values(res.rows).reduce((x, y) => x + y, 0)).toBeGreaterThan(0);
    expect(snapshotIds(store)).toEqual(kept);

    for (const id of kept) expect(await shows(store, h.dir, id), `snapshot ${id}`).toEqual(before.get(id));
    expect(await runDiff({ store }, { snapshotId: a, against: b, attribution: '' })).toEqual(diffBefore);
    expect(searchRows(store)).toEqual(searchBefore);
    expect(store.verify()).toMatchObject({ ok: true, problems: [] });
    expect(fs.statSync(h.dbPath).size).toBeLessThan(sizeBefore);
    expect(res.bytesFreed).toBeGreaterThan(0);

    // and passes go on as before on the pruned database
    const next = await h.sync();
    expect(next.failures).toEqual([]);
    expect(store.verify().ok).toBe(true);
  });

  it('never forgets the latest, a held snapshot, or one an unfinished restore works from', async () => {
    h = await makeHarness(dialect, { randomSeed: 7 });
    await buildHistory(h, dialect, 7, 6);
    const store = h.store;
    const ids = snapshotIds(store);
    const now = NOW(store);
    holdSnapshot(store.db, ids[1]!, 'tripwire: test', now);
    store.db
      .prepare(`INSERT INTO restore_runs (kind, run_key, snapshot_id, source_ids, status, started_at) VALUES ('module', 'k', ?, '[]', 'failed', ?)`)
      .run(ids[2]!, now.toISOString());
    const res = prune(store.db, { policy: { keepLast: 1 }, now });
    expect(snapshotIds(store)).toEqual([ids[1], ids[2], ids.at(-1)]);
    expect(res.protected.map((p) => p.id).sort()).toEqual([ids[1], ids[2]]);
    expect(res.keep.find((k) => k.id === ids[1])!.reasons[0]).toMatch(/held until .*wbsync snapshots --release/);
    expect(res.keep.find((k) => k.id === ids[2])!.reasons[0]).toMatch(/restore run \d+ \(failed\) works from it/);
    // a hold past its 30 days no longer protects
    const later = new Date(now.getTime() + 31 * DAY);
    store.db.prepare(`UPDATE restore_runs SET status = 'complete'`).run();
    prune(store.db, { policy: { keepLast: 1 }, now: later });
    expect(snapshotIds(store)).toEqual([ids.at(-1)]);
    expect(store.verify().ok).toBe(true);
  });

  it('keeps activity rows (the audit trail) unless retention.activityDays says otherwise', async () => {
    h = await makeHarness(dialect, { randomSeed: 9 });
    await buildHistory(h, dialect, 9, 4);
    const store = h.store;
    const rows = (): number => store.db.prepare('SELECT count(DISTINCT id) FROM activity_versions').pluck().get() as number;
    const total = rows();
    prune(store.db, { policy: { keepLast: 1 }, now: NOW(store) });
    expect(rows()).toBe(total);
    const newest = store.db.prepare('SELECT max(created_at) FROM activity_versions').pluck().get() as string;
    // activity older than 30 days before the newest row goes; the rest stays
    const now = new Date(Date.parse(newest) + 30 * DAY);
    const older = store.db.prepare('SELECT count(DISTINCT id) FROM activity_versions WHERE created_at < ?').pluck().get(new Date(Date.parse(newest)).toISOString()) as number;
    expect(older).toBeGreaterThan(0);
    const res = prune(store.db, { policy: { keepLast: 1 }, activityDays: 30, now });
    expect(rows()).toBe(total - older);
    expect(res.rows['activity_versions']).toBeGreaterThanOrEqual(older);
    expect(store.verify().ok).toBe(true);
  });

  it('should error and not write if the policy is empty', async () => {
    h = await makeHarness(dialect);
    await h.sync();
    expect(() => prune(h!.store.db, { policy: {}, now: new Date() })).toThrow(/empty retention policy/);
    expect(snapshotIds(h.store)).toHaveLength(1);
  });
});

describe('prune killed half-way', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('leaves a database verify accepts; the next prune finishes with the same result', { timeout: 120_000 }, async () => {
    h = await makeHarness('spec', { randomSeed: 3 });
    await buildHistory(h, 'spec', 3, 20);
    const store = h.store;
    const now = NOW(store);
    const policy = { keepLast: 3 };
    const kept = prune(store.db, { policy, now, dryRun: true }).keep.map((k) => k.id).sort((a, b) => a - b);
    const before = new Map<number, Record<string, string[]>>();
    for (const id of kept) before.set(id, await shows(store, h.dir, id));

    // a child process prunes one entity per transaction and reports each; it is killed mid-way
    const script = path.join(h.dir, 'prune-child.mjs');
    const dist = path.resolve('dist/store/retention/prune.js');
    fs.writeFileSync(
      script,
      `import Database from ${JSON.stringify(createRequire(import.meta.url).resolve('better-sqlite3'))};
       import { prune } from ${JSON.stringify(dist)};
       const db = new Database(process.argv[2]);
       db.pragma('busy_timeout = 5000'); db.pragma('foreign_keys = ON');
       const run = db.transaction;
       db.transaction = (fn) => { const t = run.call(db, fn); const wrap = () => { const r = t(); process.stdout.write('chunk\\n'); return r; }; wrap.immediate = () => { const r = t.immediate(); process.stdout.write('chunk\\n'); return r; }; return wrap; };
       prune(db, { policy: ${JSON.stringify(policy)}, now: new Date(${now.getTime()}), chunk: 1 });
       process.stdout.write('done\\n');`,
    );
    const child = spawn(process.execPath, [script, h.dbPath], { stdio: ['ignore', 'pipe', 'inherit'] });
    let chunks = 0;
    let done = false;
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (b: Buffer) => {
        for (const line of b.toString().split('\n')) {
          if (line === 'chunk' && ++chunks === 40) child.kill('SIGKILL');
          if (line === 'done') done = true;
        }
      });
      child.on('exit', () => resolve());
    });
    expect(done, 'the child was killed before it finished').toBe(false);
    expect(chunks).toBeGreaterThanOrEqual(40);
    // half-way: the decision is written down, nothing is shown that should not be, verify is happy
    expect(store.db.prepare('SELECT count(*) FROM snapshot_forgets WHERE finished_at IS NULL').pluck().get()).toBeGreaterThan(0);
    expect(snapshotIds(store)).toEqual(kept);
    expect(store.verify()).toMatchObject({ ok: true, problems: [] });
    for (const id of kept) expect(await shows(store, h.dir, id), `snapshot ${id} half-way`).toEqual(before.get(id));

    const res = prune(store.db, { policy, now });
    expect(res.resumed.length).toBeGreaterThan(0);
    expect(store.db.prepare('SELECT count(*) FROM snapshot_forgets WHERE finished_at IS NULL').pluck().get()).toBe(0);
    expect(snapshotIds(store)).toEqual(kept);
    for (const id of kept) expect(await shows(store, h.dir, id), `snapshot ${id}`).toEqual(before.get(id));
    expect(store.verify()).toMatchObject({ ok: true, problems: [] });
  });
});

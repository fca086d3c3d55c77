import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeActivity, makeAmendment, makeCell, makeCollection, makeColumn, makeModule, makeRecord, makeTempDir, makeWorkspace } from '../fixtures.js';
import { migrate } from '../migrate.js';
import { openStore } from '../open.js';
import type { Store, WriteBatch } from '../port.js';
import { FILL_KEEPS, deferredIndexes } from './bulk-fill.js';

type IndexRow = { name: string; tbl_name: string; sql: string };
const indexesOf = (db: Database.Database): IndexRow[] =>
  db.prepare(`SELECT name, tbl_name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY name`).all() as IndexRow[];

/** The indexes the migrations define, on a database nothing has been written to. */
function migratedIndexes(): IndexRow[] {
  const db = new Database(':memory:');
  try {
    migrate(db, () => new Date().toISOString());
    return indexesOf(db);
  } finally {
    db.close();
  }
}

const first = (): WriteBatch => ({
  upserts: {
    workspaces: [makeWorkspace('w1')],
    modules: [makeModule('m1', 'w1')],
    collections: [makeCollection('c1', 'm1')],
    columns: [makeColumn('k1', 'm1')],
    records: [makeRecord('r1', 'm1', 'c1'), makeRecord('r2', 'm1', 'c1'), makeRecord('s1', 'm1', 'c1', { parentRecordId: 'r1' })],
    cells: [makeCell('x1', 'r1', 'k1'), makeCell('x2', 'r2', 'k1'), makeCell('x3', 's1', 'k1')],
    amendments: [makeAmendment('a1', 'r1')],
    activity: [makeActivity('e1', 'w1', { recordId: 'r1' }), makeActivity('e2', 'w1', { recordId: 'r2' })],
  },
});

describe('bulk load on a first fill', () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let store: Store;
  beforeEach(() => {
    tmp = makeTempDir();
    store = openStore(path.join(tmp.dir, 's.db'));
  });
  afterEach(() => {
    store.close();
    tmp.cleanup();
  });

  it('leaves the empty tables\' other indexes out during the pass and ends it with exactly the migrations\' set', async () => {
    const want = migratedIndexes();
    expect(indexesOf(store.db)).toEqual(want);
    const s = store.beginSnapshot('full');
    const during = indexesOf(store.db).map((i) => i.name);
    const left = deferredIndexes(store.db);
    // every index of activity_versions and cell_versions but the kept ones, and no other table's
    const expected = want.filter((i) => i.tbl_name in FILL_KEEPS && !FILL_KEEPS[i.tbl_name]!.includes(i.name));
    expect(expected.length).toBeGreaterThanOrEqual(10);
    expect(left.map((d) => d.name)).toEqual(expected.map((i) => i.name));
    expect(left.every((d) => d.snapshot_id === s)).toBe(true);
    expect(during).toEqual(want.map((i) => i.name).filter((n) => !expected.some((e) => e.name === n)));
    await store.apply(s, first());
    // the pass's last batch asks the writer thread to build them
    await store.apply(s, { indexesBack: true });
    expect(deferredIndexes(store.db)).toEqual([]);
    expect(indexesOf(store.db)).toEqual(want);
    store.finishSnapshot(s, 'complete', {});
    expect(indexesOf(store.db)).toEqual(want);
    // the indexes built at the end hold every row (integrity_check compares each index with its table)
    for (const t of Object.keys(FILL_KEEPS)) expect(store.db.pragma(`integrity_check(${t})`, { simple: true })).toBe('ok');

    // a second full pass: the tables are not empty, nothing is left out
    const s2 = store.beginSnapshot('full');
    expect(deferredIndexes(store.db)).toEqual([]);
    expect(indexesOf(store.db)).toEqual(want);
    store.finishSnapshot(s2, 'complete', {});
  });

  it('a batch naming a kind builds that table\'s indexes only; the pass\'s end builds the rest', async () => {
    const want = migratedIndexes();
    const s = store.beginSnapshot('full');
    await store.apply(s, first());
    // the feed's last batch: its rows and the activity table's indexes in one transaction
    await store.apply(s, { upserts: { activity: [makeActivity('e3', 'w1', { recordId: 'r1' })] }, indexesBack: ['activity'] });
    const left = deferredIndexes(store.db);
    expect(left.length).toBeGreaterThan(0);
    expect(left.every((d) => d.tbl_name === 'cell_versions')).toBe(true);
    expect(indexesOf(store.db).filter((i) => i.tbl_name === 'activity_versions')).toEqual(want.filter((i) => i.tbl_name === 'activity_versions'));
    expect(store.db.pragma('integrity_check(activity_versions)', { simple: true })).toBe('ok');
    // rows written after it are indexed as any other insert
    await store.apply(s, { upserts: { activity: [makeActivity('e4', 'w1', { recordId: 'r2' })], cells: [makeCell('x4', 'r2', 'k1')] }, indexesBack: ['cell'] });
    expect(deferredIndexes(store.db)).toEqual([]);
    store.finishSnapshot(s, 'complete', {});
    expect(indexesOf(store.db)).toEqual(want);
    for (const t of Object.keys(FILL_KEEPS)) expect(store.db.pragma(`integrity_check(${t})`, { simple: true })).toBe('ok');
  });

  it('builds them back when the pass fails, and an incremental pass leaves nothing out', async () => {
    const want = migratedIndexes();
    const inc = store.beginSnapshot('incremental');
    expect(deferredIndexes(store.db)).toEqual([]);
    store.finishSnapshot(inc, 'failed', {});
    const s = store.beginSnapshot('full');
    expect(deferredIndexes(store.db).length).toBeGreaterThan(0);
    await store.apply(s, first());
    store.finishSnapshot(s, 'failed', {});
    expect(indexesOf(store.db)).toEqual(want);
  });

  it('a pass abandoned without its end: the next pass\'s check for interrupted snapshots builds them back', async () => {
    const want = migratedIndexes();
    const file = path.join(tmp.dir, 'abandoned.db');
    const a = openStore(file);
    const s = a.beginSnapshot('full');
    await a.apply(s, first());
    a.close(); // no finishSnapshot: the pass went away (same process, so its owner still looks alive)
    const b = openStore(file);
    try {
      expect(deferredIndexes(b.db).length).toBeGreaterThan(0);
      expect(b.failInterruptedSnapshots()).toEqual([s]);
      expect(indexesOf(b.db)).toEqual(want);
      expect(deferredIndexes(b.db)).toEqual([]);
    } finally {
      b.close();
    }
  });

  it('an export taken during a first fill has every index', async () => {
    const want = migratedIndexes();
    const s = store.beginSnapshot('full');
    await store.apply(s, first());
    store.finishSnapshot(s, 'complete', {});
    // a first fill after a complete snapshot (a workspace whose feed was empty until now): the feed
    // table emptied by hand stands for it
    store.db.exec('DELETE FROM activity_versions');
    const s2 = store.beginSnapshot('full');
    expect(deferredIndexes(store.db).map((d) => d.tbl_name)).toContain('activity_versions');
    const out = path.join(tmp.dir, 'copy.db');
    await store.exportTo(out, s);
    const copy = new Database(out, { readonly: true });
    try {
      expect(indexesOf(copy)).toEqual(want);
    } finally {
      copy.close();
    }
    store.finishSnapshot(s2, 'complete', {});
  });
});

describe('the writer\'s statements on a table in its first fill', () => {
  it('use an index for every look-up into a table whose indexes are left out (EXPLAIN QUERY PLAN)', async () => {
    const store = openStore(':memory:'); // the inline writer: its statements are prepared on store.db
    try {
      const s = store.beginSnapshot('full');
      expect(deferredIndexes(store.db).length).toBeGreaterThan(0);
      const seen = new Set<string>();
      const prepare = store.db.prepare.bind(store.db);
      (store.db as { prepare: typeof prepare }).prepare = ((sql: string) => {
        seen.add(sql);
        return prepare(sql);
      }) as typeof prepare;
      await store.apply(s, first());
      // everything a pass's batches ask of those tables: listings, gone marks with and without cascade
      await store.apply(s, {
        upserts: { cells: [makeCell('x1', 'r1', 'k1', { value: 'changed' })], activity: [makeActivity('e1', 'w1', { recordId: 'r1', message: 'm' })] },
        listings: [
          { kind: 'cell', recordId: 'r1', ids: ['x1'] },
          { kind: 'record', collectionId: 'c1', ids: ['r1'] },
          { kind: 'subrecord', parentRecordId: 'r1', ids: [] },
          { kind: 'amendment', recordId: 'r1', ids: [] },
        ],
        gone: [{ kind: 'cell', id: 'x3' }, { kind: 'record', id: 'r2', cascade: true }, { kind: 'module', id: 'm1', cascade: true }],
      });
      const tables = Object.keys(FILL_KEEPS);
      const touching = [...seen].filter((sql) => tables.some((t) => new RegExp(`\\b${t}\\b`).test(sql)));
      expect(touching.length).toBeGreaterThanOrEqual(8);
      for (const sql of touching) {
        const params = (sql.match(/\?/g) ?? []).map(() => null);
        const plan = (prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map((r) => r.detail);
        for (const t of tables) {
          expect(plan.filter((d) => new RegExp(`^SCAN ${t}\\b`).test(d)), `${sql}\n${plan.join('\n')}`).toEqual([]);
        }
      }
      store.finishSnapshot(s, 'complete', {});
    } finally {
      store.close();
    }
  });
});

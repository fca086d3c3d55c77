import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPORTING_QUERIES } from '../read/reporting-queries.js';
import { makeCell, makeColumn, makeMember, makeModule, makeRecord, makeTempDir, makeWorkspace } from '../fixtures.js';
import { migrate } from '../migrate.js';
import { openStore } from '../open.js';
import type { Store } from '../port.js';
import { VIEW_SOURCES } from '../export/view-sources.js';
import { MIGRATIONS } from './index.js';

const plan = (db: Database.Database, sql: string): string[] =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as Array<{ detail: string }>).map((r) => r.detail);

describe('migration 012 (reporting speed)', () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let store: Store;
  let latest: number;
  beforeEach(async () => {
    tmp = makeTempDir();
    store = openStore(path.join(tmp.dir, 'r.db'));
    const cols = [makeColumn('st', 'm1', { type: 'status' }), makeColumn('ow', 'm1', { type: 'person', position: 1 })];
    const base = {
      workspaces: [makeWorkspace('w1')], members: [makeMember('w1', 'u1')], modules: [makeModule('m1', 'w1')], columns: cols,
    };
    // three complete passes changing a record and its cells each time, then a failed one and a
    // running one that close and add versions after the latest complete snapshot
    for (let i = 0; i < 3; i++) {
      const s = store.beginSnapshot(i === 0 ? 'full' : 'incremental');
      await store.apply(s, {
        upserts: {
          ...base,
          records: [makeRecord('r1', 'm1', null, { name: `r1 v${i}` }), makeRecord('r2', 'm1', null, { isCompleted: i === 1 })],
          cells: [makeCell('c1', 'r1', 'st', { value: `Stage ${i}` }), makeCell('c2', 'r1', 'ow', { value: '["u1"]' })],
        },
      });
      store.finishSnapshot(s, 'complete', {});
      latest = s;
    }
    const failed = store.beginSnapshot('incremental');
    await store.apply(failed, { upserts: { records: [makeRecord('r1', 'm1', null, { name: 'from a failed pass' })] } });
    store.finishSnapshot(failed, 'failed', {});
    const running = store.beginSnapshot('incremental');
    await store.apply(running, {
      upserts: { records: [makeRecord('r3', 'm1', null)], cells: [makeCell('c1', 'r1', 'st', { value: 'running' })] },
      gone: [{ kind: 'record', id: 'r2' }],
    });
  });
  afterEach(() => {
    store.close();
    tmp.cleanup();
  });

  it('the views show exactly what the earlier definitions did: versions with valid_from <= L < valid_to', () => {
    const db = store.db;
    for (const v of VIEW_SOURCES.filter((x) => x.table !== null)) {
      const cols = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(v.view) as string[];
      const list = cols.map((c) => `"${c}"`).join(', ');
      const before = db.prepare(`SELECT ${list} FROM ${v.table} WHERE valid_from <= ? AND (valid_to IS NULL OR valid_to > ?) ORDER BY 1, 2`).all(latest, latest);
      expect(db.prepare(`SELECT * FROM "${v.view}" ORDER BY 1, 2`).all(), v.view).toEqual(before);
    }
    expect(db.prepare('SELECT name FROM records ORDER BY id').pluck().all()).toEqual(['r1 v2', 'Record r2']);
    expect(db.prepare(`SELECT value FROM cells WHERE id = 'c1'`).pluck().get()).toBe('Stage 2');
  });

  it('answers the README queries through indexes: no scan of cells, records or activity', () => {
    for (const q of REPORTING_QUERIES) {
      const steps = plan(store.db, q.sql);
      for (const table of ['cell_versions', 'record_versions', 'activity_versions', 'module_versions', 'member_versions']) {
        expect(steps.filter((s) => s.startsWith(`SCAN ${table}`)), `${q.title}: ${steps.join(' | ')}`).toEqual([]);
      }
    }
    expect(plan(store.db, REPORTING_QUERIES[0]!.sql).join('\n')).toMatch(/cell_versions USING COVERING INDEX cell_versions_record_column \(record_id=\? AND column_id=\?/);
    const week = plan(store.db, `SELECT * FROM activity WHERE created_at >= '2026-01-01'`).join('\n');
    expect(week).toMatch(/activity_versions USING INDEX activity_versions_created_at/);
    const lookup = plan(store.db, `SELECT * FROM records r JOIN modules m ON m.id = r.module_id WHERE r.id = 'r1'`).join('\n');
    expect(lookup).toMatch(/module_versions USING INDEX module_versions_as_of \(id=\? AND <expr>>\?\)/);
  });

  it('migrates a database written without it (later migrations applied already), keeping every row; verify passes', () => {
    const file = path.join(tmp.dir, 'old.db');
    const old = new Database(file);
    migrate(old, () => '2026-01-01T00:00:00Z', MIGRATIONS.filter((m) => m.version !== 12));
    old.exec(`INSERT INTO snapshot_runs (kind, status, started_at) VALUES ('full', 'complete', 'x');
      INSERT INTO module_versions (id, workspace_id, name, tags, raw, hash, valid_from) VALUES ('m1', 'w1', 'Board', '[]', '{}', 'h', 1);`);
    old.close();
    const migrated = openStore(file);
    try {
      expect(migrated.db.prepare('SELECT name FROM modules').pluck().all()).toEqual(['Board']);
      expect(migrated.db.prepare('SELECT version FROM schema_migrations WHERE version = 12').pluck().get()).toBe(12);
      const indexes = migrated.db.prepare(`SELECT name FROM sqlite_schema WHERE type = 'index' AND name LIKE '%_history'`).pluck().all();
      expect(indexes).not.toContain('record_versions_history'); // replaced by record_versions_as_of
      expect(migrated.verify().problems).toEqual([]);
    } finally {
      migrated.close();
    }
  });
});

import { readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HISTORY_QUERIES } from '../read/reporting-queries.js';
import { makeActivity, makeColumn, makeMember, makeModule, makeRecord, makeTempDir, makeWorkspace } from '../fixtures.js';
import { migrate } from '../migrate.js';
import { openStore } from '../open.js';
import type { Store } from '../port.js';
import { MIGRATIONS } from './index.js';

const PARAMS = { record: 'r1', user: 'u1', from: '2026-01-01T00:00:00.000Z', to: '2026-01-02T00:00:00.000Z' };

/** The parameters a query names, bound from PARAMS. */
function bind(sql: string): Record<string, string> {
  const names = [...sql.matchAll(/:(\w+)/g)].map((m) => m[1]! as keyof typeof PARAMS);
  return Object.fromEntries(names.map((n) => [n, PARAMS[n]]));
}

const plan = (db: Database.Database, sql: string): string[] =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(bind(sql)) as Array<{ detail: string }>).map((r) => r.detail);

/** A full pass of the table itself (a scan of a covering index reads only the index). */
const tableScans = (steps: string[]): string[] => steps.filter((s) => /^SCAN activity_versions( USING INDEX|$)/.test(s));

describe('migration 017 (history over the activity feed)', () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let store: Store;
  beforeEach(async () => {
    tmp = makeTempDir();
    store = openStore(path.join(tmp.dir, 'h.db'));
    const s = store.beginSnapshot('full');
    const activity = Array.from({ length: 40 }, (_, i) =>
      makeActivity(`a${i}`, 'w1', {
        action: i % 3 === 0 ? 'cell.updated' : 'record.created',
        recordId: `r${i % 4}`, moduleId: 'm1', columnId: i % 3 === 0 ? 'c1' : null,
        userId: i % 5 === 0 ? 'u2' : 'u1',
        createdAt: new Date(Date.parse('2025-12-20T00:00:00Z') + i * 12 * 3_600_000).toISOString(),
      }),
    );
    await store.apply(s, {
      upserts: {
        workspaces: [makeWorkspace('w1')], members: [makeMember('w1', 'u1'), makeMember('w1', 'u2')],
        modules: [makeModule('m1', 'w1')], columns: [makeColumn('c1', 'm1')],
        records: ['r0', 'r1', 'r2', 'r3'].map((id) => makeRecord(id, 'm1', null)),
        activity,
      },
    });
    store.finishSnapshot(s, 'complete', {});
  });
  afterEach(() => {
    store.close();
    tmp.cleanup();
  });

  it('answers every history query without a full scan of the activity versions', () => {
    for (const q of HISTORY_QUERIES) {
      const steps = plan(store.db, q.sql);
      expect(tableScans(steps), `${q.title}: ${steps.join(' | ')}`).toEqual([]);
    }
  });

  it("seeks one record's and one person's rows, and counts by record from the index alone", () => {
    const byTitle = (t: string): string => plan(store.db, HISTORY_QUERIES.find((q) => q.title === t)!.sql).join('\n');
    expect(byTitle("One record's history")).toMatch(/SEARCH activity_versions USING INDEX activity_versions_record \(record_id=\?\)/);
    expect(byTitle('What one person did in a day')).toMatch(/SEARCH activity_versions USING INDEX activity_versions_user \(user_id=\? AND created_at>\? AND created_at<\?\)/);
    expect(byTitle("One person's changes per week")).toMatch(/SEARCH activity_versions USING COVERING INDEX activity_versions_user \(user_id=\?\)/);
    const top = byTitle('The records changed most, with their history');
    expect(top).toMatch(/SEARCH activity_versions USING COVERING INDEX activity_versions_record \(record_id>\?\)/);
    expect(top).toMatch(/SEARCH activity_versions USING INDEX activity_versions_record \(record_id=\?\)/);
  });

  it('gives the answers a plain reading of the feed gives', () => {
    const run = (t: string): unknown[] => {
      const sql = HISTORY_QUERIES.find((q) => q.title === t)!.sql;
      return store.db.prepare(sql).all(bind(sql));
    };
    expect(run("One record's history")).toHaveLength(10);
    const day = run('What one person did in a day') as Array<{ created_at: string }>;
    expect(day.map((r) => r.created_at)).toEqual(['2026-01-01T00:00:00.000Z']); // 2026-01-01T12:00 is u2's
    const weeks = run('Changes per week, per person') as Array<{ changes: number }>;
    expect(weeks.reduce((n, r) => n + r.changes, 0)).toBe(40);
    const top = run('The records changed most, with their history') as Array<{ record: string; changes: number }>;
    expect(top).toHaveLength(40);
    expect(top[0]).toMatchObject({ record: 'Record r0', changes: 10 });
  });

  it('docs/performance.md shows the queries it shows verbatim', () => {
    const doc = readFileSync(new URL('../../../docs/performance.md', import.meta.url), 'utf8');
    const shown = HISTORY_QUERIES.filter((q) => doc.includes(q.sql));
    expect(shown.map((q) => q.title)).toEqual(["One record's history", 'The records changed most, with their history']);
  });

  it('migrates a database written without it, keeping every activity row', () => {
    const file = path.join(tmp.dir, 'old.db');
    const old = new Database(file);
    migrate(old, () => '2026-01-01T00:00:00Z', MIGRATIONS.filter((m) => m.version !== 17));
    old.exec(`INSERT INTO snapshot_runs (kind, status, started_at) VALUES ('full', 'complete', 'x');
      INSERT INTO activity_versions (id, workspace_id, action, record_id, user_id, created_at, raw, hash, valid_from)
        VALUES ('a1', 'w1', 'record.created', 'r1', 'u1', '2026-01-01T00:00:00Z', '{}', 'h', 1);`);
    old.close();
    const migrated = openStore(file);
    try {
      expect(migrated.db.prepare(`SELECT id FROM activity WHERE record_id = 'r1'`).pluck().all()).toEqual(['a1']);
      const indexes = migrated.db.prepare(`SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'activity_versions'`).pluck().all();
      expect(indexes).toEqual(expect.arrayContaining(['activity_versions_record', 'activity_versions_user']));
      expect(migrated.verify().problems).toEqual([]);
    } finally {
      migrated.close();
    }
  });
});

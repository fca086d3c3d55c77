import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cellSearchText, searchRows } from '../tables/fts.js';
import { makeCell, makeColumn, makeModule, makeRecord, makeTempDir, makeWorkspace, makeAmendment } from '../fixtures.js';
import { openStore } from '../open.js';
import type { Store } from '../port.js';

describe('the search index over cells (migration 021, src/store/fts.ts)', () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let store: Store;
  let dbPath: string;
  beforeEach(() => {
    tmp = makeTempDir();
    dbPath = path.join(tmp.dir, 's.db');
    store = openStore(dbPath);
  });
  afterEach(() => {
    store.close();
    tmp.cleanup();
  });

  const pass = async (cells: ReturnType<typeof makeCell>[], recordName = 'Ship it'): Promise<void> => {
    const s = store.beginSnapshot('full');
    await store.apply(s, {
      upserts: {
        workspaces: [makeWorkspace('w1')],
        modules: [makeModule('m1', 'w1')],
        columns: [makeColumn('t', 'm1', { type: 'text' }), makeColumn('p', 'm1', { type: 'person', position: 1 }), makeColumn('x', 'm1', { type: 'checkbox', position: 2 })],
        records: [makeRecord('r1', 'm1', null, { name: recordName })],
        cells,
        amendments: [makeAmendment('a1', 'r1', { message: 'a note', moduleId: 'm1' })],
      },
    });
    store.finishSnapshot(s, 'complete', {});
  };

  it('should index what people typed, not ids or checkbox states', () => {
    expect(cellSearchText('launch plan')).toBe('launch plan');
    expect(cellSearchText('42')).toBe('42');
    expect(cellSearchText('["u1","u2"]')).toBeNull();
    expect(cellSearchText('{"startDate":"2026-01-01","endDate":"2026-02-01"}')).toBeNull();
    expect(cellSearchText('true')).toBeNull();
    expect(cellSearchText('[not json] typed by hand')).toBe('[not json] typed by hand');
    expect(cellSearchText('   ')).toBeNull();
    expect(cellSearchText(null)).toBeNull();
  });

  it('should keep cells in the index as versions are written and closed, exactly as a rebuild would', async () => {
    await pass([makeCell('c1', 'r1', 't', { value: 'launch plan' }), makeCell('c2', 'r1', 'p', { value: '["u1"]' }), makeCell('c3', 'r1', 'x', { value: 'true' })]);
    let rows = searchRows(store.db);
    expect(rows.held).toEqual(rows.expected);
    expect(rows.held.map((r) => [r.kind, r.text])).toEqual([
      ['record', 'Ship it'],
      ['amendment', 'a note'],
      ['cell', 'launch plan'],
    ]);
    // the cell edited and the record renamed: the old texts leave the index
    await pass([makeCell('c1', 'r1', 't', { value: 'landing plan' }), makeCell('c2', 'r1', 'p', { value: '["u1"]' }), makeCell('c3', 'r1', 'x', { value: 'true' })], 'Shipped');
    rows = searchRows(store.db);
    expect(rows.held).toEqual(rows.expected);
    expect(rows.held.map((r) => r.text).sort()).toEqual(['Shipped', 'a note', 'landing plan']);
  });

  it('should rebuild an index made before 021 (records and amendments only, the old keys) with the cells', async () => {
    await pass([makeCell('c1', 'r1', 't', { value: 'launch plan' })]);
    // as a database at 015 had it: no cells, rowid = vid*2 (+1 for amendments), 021 not applied
    store.db.exec(`DELETE FROM search;
      INSERT INTO search (rowid, kind, entity_id, record_id, module_id, text) SELECT vid * 2, 'record', id, id, module_id, name FROM record_versions WHERE valid_to IS NULL;
      INSERT INTO search (rowid, kind, entity_id, record_id, module_id, text) SELECT vid * 2 + 1, 'amendment', id, record_id, module_id, message FROM amendment_versions WHERE valid_to IS NULL;
      DELETE FROM schema_migrations WHERE version = 21;`);
    store.close();
    store = openStore(dbPath);
    const rows = searchRows(store.db);
    expect(rows.held).toEqual(rows.expected);
    expect(rows.held.some((r) => r.kind === 'cell' && r.text === 'launch plan')).toBe(true);
    expect(store.db.prepare(`SELECT count(*) FROM search WHERE search MATCH '"launch"'`).pluck().get()).toBe(1);
  });
});

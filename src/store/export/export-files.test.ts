import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeActivity, makeAmendment, makeCell, makeColumn, makeMember, makeModule, makeRecord, makeTempDir, makeWorkspace } from '../fixtures.js';
import { openStore } from '../open.js';
import type { Store } from '../port.js';
import { parseCsv } from './row-text.js';
import { VIEW_SOURCES } from './view-sources.js';

/** What a user might type into a board: every character CSV and spreadsheets trip over. */
const HOSTILE = [
  'say "hi", then\nleave', '=HYPERLINK("http://x","y")', '+1', '-2', '@SUM(1)', '', ' ', '"', ',', '\r\n', '\r',
  'naïve — 日本語 🦆 עברית \u2028\u2029', '\\"\\', '\ttab', "'single'",
];

const viewRows = (db: Database.Database, view: string): unknown[][] => db.prepare(`SELECT * FROM "${view}"`).raw(true).all() as unknown[][];
const asCsvText = (rows: unknown[][]): Array<Array<string | null>> => rows.map((r) => r.map((v) => (v === null ? null : String(v))));
const sortRows = <T>(rows: T[]): T[] => [...rows].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));

describe('export to CSV and JSON Lines files', () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let store: Store;
  let s1: number;
  let s2: number;
  beforeEach(async () => {
    tmp = makeTempDir();
    store = openStore(path.join(tmp.dir, 'main.db'));
    s1 = store.beginSnapshot('full');
    await store.apply(s1, {
      upserts: {
        workspaces: [makeWorkspace('w1', { description: HOSTILE[0]! })],
        members: [makeMember('w1', 'u1', { firstName: '=cmd|', lastName: 'O"Brien, Jr.' })],
        modules: [makeModule('m1', 'w1', { name: HOSTILE[1]! }), makeModule('m2', 'w1')],
        columns: [makeColumn('c1', 'm1', { name: 'Notes, "quoted"' })],
        records: [
          ...HOSTILE.map((name, i) => makeRecord(`r${i}`, 'm1', null, { name: name === '' ? 'x' : name, position: i + 0.25 })),
          makeRecord('rm2', 'm2', null),
        ],
        cells: HOSTILE.map((value, i) => makeCell(`x${i}`, `r${i}`, 'c1', { value, raw: { _id: `x${i}`, value } })),
        amendments: [makeAmendment('a1', 'r1', { message: HOSTILE.join('|') })],
        activity: [makeActivity('act1', 'w1', { message: HOSTILE[0]!, before: null, after: '{"v":"\\n"}' })],
      },
    });
    store.finishSnapshot(s1, 'complete', {});
    s2 = store.beginSnapshot('incremental');
    await store.apply(s2, {
      upserts: { records: [makeRecord('r1', 'm1', null, { name: 'renamed, later' }), makeRecord('r99', 'm1', null, { name: 'new' })] },
      gone: [{ kind: 'module', id: 'm2', cascade: true }],
    });
    store.finishSnapshot(s2, 'complete', {});
  });
  afterEach(() => {
    store.close();
    tmp.cleanup();
  });

  it('has a source for every view the migrations create, and nothing else', () => {
    const views = store.db.prepare(`SELECT name FROM sqlite_schema WHERE type = 'view' ORDER BY name`).pluck().all();
    expect(VIEW_SOURCES.map((v) => v.view).sort()).toEqual(views);
  });

  it('writes every view as RFC 4180 CSV, byte-exact for hostile strings, 0600 files in a 0700 folder', async () => {
    const out = path.join(tmp.dir, 'reports', 'csv');
    const files = await store.exportFiles(out, 'csv');
    expect(fs.statSync(out).mode & 0o777).toBe(0o700);
    expect(fs.readdirSync(out).sort()).toEqual(VIEW_SOURCES.map((v) => `${v.view}.csv`).sort());
    expect(fs.readdirSync(path.dirname(out))).toEqual(['csv']); // no temporary folder left
    for (const f of files) {
      expect(fs.statSync(path.join(out, f.file)).mode & 0o777, f.file).toBe(0o600);
      const parsed = parseCsv(fs.readFileSync(path.join(out, f.file), 'utf8'));
      const columns = store.db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(f.view);
      expect(parsed[0], f.view).toEqual(columns);
      expect(parsed.length - 1, f.view).toBe(f.rows);
      expect(sortRows(parsed.slice(1)), f.view).toEqual(sortRows(asCsvText(viewRows(store.db, f.view))));
    }
    const cells = parseCsv(fs.readFileSync(path.join(out, 'cells.csv'), 'utf8'));
    const valueAt = cells[0]!.indexOf('value');
    expect(cells.slice(1).map((r) => r[valueAt]).sort()).toEqual([...HOSTILE].sort()); // '' stays '', not NULL
    // the bytes themselves: UTF-8, CRLF record ends, no BOM
    const raw = fs.readFileSync(path.join(out, 'records.csv'));
    expect(raw.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(false);
    expect(raw.toString('utf8')).toContain('\r\n');
    expect(raw.includes(Buffer.from('🦆', 'utf8'))).toBe(true);
  });

  it('writes every view as JSON Lines with the values as the views hold them', async () => {
    const out = path.join(tmp.dir, 'jsonl');
    const files = await store.exportFiles(out, 'jsonl');
    expect(files.map((f) => f.view)).toEqual(VIEW_SOURCES.map((v) => v.view));
    for (const f of files) {
      const text = fs.readFileSync(path.join(out, f.file), 'utf8');
      const lines = text === '' ? [] : text.replace(/\n$/, '').split('\n');
      expect(lines.length, f.view).toBe(f.rows);
      const want = store.db.prepare(`SELECT * FROM "${f.view}"`).all();
      expect(sortRows(lines.map((l) => JSON.parse(l))), f.view).toEqual(sortRows(want));
    }
  });

  it('an export of snapshot N holds what an export --snapshot N database file shows', async () => {
    const s3 = store.beginSnapshot('incremental'); // running: nothing of it may show
    await store.apply(s3, { upserts: { records: [makeRecord('r0', 'm2', null, { name: 'during s3' })] } });
    const db = path.join(tmp.dir, 'at-1.db');
    await store.exportTo(db, s1);
    const out = path.join(tmp.dir, 'at-1');
    await store.exportFiles(out, 'csv', s1);
    const copy = new Database(db, { readonly: true });
    try {
      for (const v of VIEW_SOURCES) {
        const parsed = parseCsv(fs.readFileSync(path.join(out, `${v.view}.csv`), 'utf8'));
        expect(sortRows(parsed.slice(1)), v.view).toEqual(sortRows(asCsvText(viewRows(copy, v.view))));
      }
      expect(viewRows(copy, 'records').length).toBe(HOSTILE.length + 1);
    } finally {
      copy.close();
    }
    const names = parseCsv(fs.readFileSync(path.join(out, 'records.csv'), 'utf8')).map((r) => r[5]);
    expect(names).toContain(HOSTILE[0]);
    expect(names).not.toContain('renamed, later');
  });

  it('should error and not write if the folder holds anything, or the snapshot is not complete', async () => {
    const out = path.join(tmp.dir, 'busy');
    fs.mkdirSync(out);
    fs.writeFileSync(path.join(out, 'keep.txt'), 'precious');
    await expect(store.exportFiles(out, 'csv')).rejects.toMatchObject({ code: 'usage', message: expect.stringMatching(/not an empty folder/) });
    expect(fs.readdirSync(out)).toEqual(['keep.txt']);
    const running = store.beginSnapshot('full');
    await expect(store.exportFiles(path.join(tmp.dir, 'x'), 'csv', running)).rejects.toMatchObject({ code: 'usage' });
    await expect(store.exportFiles(path.join(tmp.dir, 'y'), 'jsonl', 42)).rejects.toThrow(/does not exist/);
    expect(fs.existsSync(path.join(tmp.dir, 'x')) || fs.existsSync(path.join(tmp.dir, 'y'))).toBe(false);
  });

  it('fills an existing empty folder', async () => {
    const out = path.join(tmp.dir, 'empty');
    fs.mkdirSync(out);
    await store.exportFiles(out, 'jsonl');
    expect(fs.readdirSync(out)).toHaveLength(VIEW_SOURCES.length);
  });

  it('should error and leave no folder behind if a view fails midway', async () => {
    // the last view's table made unreadable: every earlier file was written, none may be presented
    store.db.exec('ALTER TABLE reference_versions RENAME TO reference_versions_gone');
    const out = path.join(tmp.dir, 'broken');
    await expect(store.exportFiles(out, 'csv')).rejects.toMatchObject({ code: 'storage' });
    expect(fs.existsSync(out)).toBe(false);
    expect(fs.readdirSync(tmp.dir).filter((f) => f.startsWith('.wbsync-export-'))).toEqual([]);
  });
});

// Refuse before writing (issue #32 items 3 and 5): a file that is not wbsync's, or one a newer
// wbsync wrote, is refused with its bytes, mode and journal mode as they were and no new -wal or
// -shm beside it; a folder or a missing file is named as such.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isWbsyncError, type WbsyncError } from '../domain/errors.js';
import { makeTempDir } from './fixtures.js';
import { inspectDatabase } from './open-inspect.js';
import { openStore } from './open.js';

const sha = (f: string): string => createHash('sha256').update(fs.readFileSync(f)).digest('hex');
const sideFiles = (f: string): string[] => ['-wal', '-shm', '-journal', '.lock'].filter((s) => fs.existsSync(f + s));

function refusal(fn: () => unknown): WbsyncError {
  try {
    fn();
  } catch (e) {
    if (isWbsyncError(e)) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

/** The state a refusal must leave as it was. */
function stateOf(f: string): { sha: string; mode: number; side: string[]; journal: string } {
  const journal = fs.readFileSync(f)[18] === 2 ? 'wal' : 'rollback'; // header: write version
  return { sha: sha(f), mode: fs.statSync(f).mode & 0o777, side: sideFiles(f), journal };
}

describe('refusing before writing', () => {
  let tmp: ReturnType<typeof makeTempDir>;
  beforeEach(() => (tmp = makeTempDir()));
  afterEach(() => tmp.cleanup());

  it("refuses another program's SQLite database (a browser's places.db: mode 644, rollback journal) untouched, read-write and read-only", () => {
    const file = path.join(tmp.dir, 'places.db');
    const other = new Database(file);
    other.exec(`CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT); INSERT INTO moz_places (url) VALUES ('https://example.org/');
                CREATE TABLE moz_bookmarks (id INTEGER PRIMARY KEY, fk INTEGER)`);
    other.close();
    fs.chmodSync(file, 0o644);
    const before = stateOf(file);
    expect(before).toMatchObject({ mode: 0o644, side: [], journal: 'rollback' });
    for (const readonly of [false, true]) {
      const err = refusal(() => openStore(file, { readonly }));
      expect(err.code).toBe('config');
      expect(err.message).toContain('is a SQLite database but not a wbsync one (it holds moz_bookmarks, moz_places)');
      expect(stateOf(file)).toEqual(before);
    }
    expect(inspectDatabase(file)).toEqual({ kind: 'foreign', tables: ['moz_bookmarks', 'moz_places'] });
  });

  it('refuses a file that is not SQLite at all, untouched', () => {
    const file = path.join(tmp.dir, 'notes.txt');
    fs.writeFileSync(file, 'x'.repeat(4096), { mode: 0o644 });
    const before = stateOf(file);
    expect(refusal(() => openStore(file)).message).toContain('is not a SQLite database');
    expect(stateOf(file)).toEqual(before);
  });

  it('refuses a database a newer wbsync wrote (WAL, closed cleanly) byte-identical, with no new -wal/-shm', () => {
    const file = path.join(tmp.dir, 'newer.db');
    const s = openStore(file);
    s.db.prepare(`INSERT INTO schema_migrations VALUES (99, 'future', 'x')`).run();
    s.close();
    expect(sideFiles(file)).toEqual([]);
    const before = stateOf(file);
    expect(before.journal).toBe('wal');
    for (const readonly of [false, true]) {
      const err = refusal(() => openStore(file, { readonly }));
      expect(err.message).toContain('database has migrations this wbsync does not know: 99');
      expect(err.hint).toContain('upgrade wbsync');
      expect(stateOf(file)).toEqual(before);
    }
  });

  it('refuses a newer database in rollback-journal mode without switching it to WAL', () => {
    const file = path.join(tmp.dir, 'newer-rollback.db');
    const s = openStore(file);
    s.db.prepare(`INSERT INTO schema_migrations VALUES (99, 'future', 'x')`).run();
    s.db.pragma('journal_mode = DELETE');
    s.close();
    const before = stateOf(file);
    expect(before.journal).toBe('rollback');
    refusal(() => openStore(file));
    expect(stateOf(file)).toEqual(before);
  });

  it('names a folder given as the database, read-write and read-only', () => {
    for (const readonly of [false, true]) {
      const err = refusal(() => openStore(tmp.dir, { readonly }));
      expect(err.message).toBe(`the database path ${tmp.dir} is a folder, not a database file`);
      expect(err.hint).toContain(path.join(tmp.dir, 'wbsync.db'));
    }
  });

  it('takes an empty file (made by hand or by `touch`) as a new database', () => {
    const file = path.join(tmp.dir, 'touched.db');
    fs.writeFileSync(file, '');
    openStore(file).close();
    expect(inspectDatabase(file)).toMatchObject({ kind: 'wbsync' });
  });

  it('refuses a read of a database whose schema is behind without leaving -wal or -shm (a failed open writes nothing)', () => {
    const file = path.join(tmp.dir, 'behind.db');
    const s = openStore(file);
    s.db.prepare('DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations)').run();
    s.close();
    const before = stateOf(file);
    expect(before.side).toEqual([]);
    expect(refusal(() => openStore(file, { readonly: true })).message).toContain('database schema is behind');
    expect(stateOf(file)).toEqual(before);
  });
});

// Before anything opens a database to write (or to read), look at it without writing a byte: is
// there one, is it a folder, is it SQLite, is it wbsync's, was it written by a newer wbsync? A
// refusal then leaves the file as it was — bytes, mode, journal mode, and no new -wal/-shm.
//
// Reading without writing: a WAL database opened read-only the ordinary way creates -shm and -wal
// beside it (and fails on read-only media). When no -wal exists every committed page is in the
// main file, so SQLite's `immutable` URI flag reads it with no side file at all.

import { accessSync, closeSync, constants, existsSync, openSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { WbsyncError } from '../domain/errors.js';
import { commandLine } from '../domain/shell-command.js';
import { checkAppliedCurrent } from './migrate.js';
import { MIGRATIONS } from './migrations/index.js';
import { BUSY_TIMEOUT_MS } from './pragmas.js';

// URI filenames (for `immutable`) are off in better-sqlite3's build unless this is set when its
// addon loads, i.e. before the first connection of the process; our paths are absolute, so no
// file name of ours is read as a URI by accident.
process.env.SQLITE_USE_URI ??= '1';

export type DbIdentity =
  | { kind: 'missing' }
  | { kind: 'folder' }
  | { kind: 'empty' }
  | { kind: 'not-sqlite' }
  | { kind: 'foreign'; tables: string[] }
  | { kind: 'wbsync'; applied: Set<number> };

const HEADER = Buffer.from('SQLite format 3\0', 'latin1');

function headerOf(file: string): Buffer {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(100);
    const n = readSync(fd, buf, 0, 100, 0);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

function uriFor(file: string): string {
  const escaped = file.replace(/[%?#]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return `file:${escaped}?immutable=1`;
}

export function folderWritable(file: string): boolean {
  try {
    accessSync(path.dirname(file), constants.W_OK);
    return true;
  } catch {
    return false; // EROFS on read-only media (root included), EACCES for another user's folder
  }
}

/**
 * A read-only connection that writes nothing beside the file when it can: `immutable` when no
 * -wal exists and either `brief` (a look at the schema) or the folder is not writable (read-only
 * media: nobody can be writing there). Otherwise an ordinary read-only connection, which sees a
 * writer's WAL (the daemon's) and may create -shm as SQLite needs it.
 */
export function openReadOnlyConnection(file: string, opts: { brief?: boolean } = {}): Database.Database {
  const walExists = existsSync(`${file}-wal`);
  if (!walExists && (opts.brief || !folderWritable(file))) {
    try {
      return new Database(uriFor(file), { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
    } catch (e) {
      // URI filenames unavailable (the addon was loaded before SQLITE_USE_URI was set): ordinary open
      if ((e as { code?: string }).code !== 'SQLITE_CANTOPEN') throw e;
    }
  }
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
    db.prepare('SELECT count(*) FROM sqlite_master').get(); // SQLite opens lazily: fail here, not later
    return db;
  } catch (e) {
    db?.close();
    if (walExists && !existsSync(`${file}-shm`) && !folderWritable(file)) {
      throw new WbsyncError('storage', `cannot read ${file} where it is: its -wal holds writes not yet in the file, its -shm is missing, and the folder is read-only`, {
        hint: `copy ${path.basename(file)} with its -wal to a writable folder and run the command on the copy (SQLite needs to write the -shm to read a -wal)`,
        cause: e,
      });
    }
    throw e;
  }
}

/** What is at `file`, read without writing. */
export function inspectDatabase(file: string): DbIdentity {
  let st;
  try {
    st = statSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    throw e;
  }
  if (st.isDirectory()) return { kind: 'folder' };
  // a new database in WAL mode is all in its -wal until the first checkpoint: the file stays empty
  const walBytes = fileSize(`${file}-wal`);
  if (st.size === 0 && walBytes === 0) return { kind: 'empty' };
  if (st.size > 0) {
    const header = headerOf(file);
    if (header.length < 100 || !header.subarray(0, 16).equals(HEADER)) return { kind: 'not-sqlite' };
  }
  const db = openReadOnlyConnection(file, { brief: true });
  try {
    const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`).pluck().all() as string[];
    if (tables.length === 0) return { kind: 'empty' };
    if (!tables.includes('schema_migrations')) return { kind: 'foreign', tables };
    const rows = db.prepare('SELECT version, name FROM schema_migrations').all() as Array<{ version: number; name: string }>;
    const first = MIGRATIONS[0]!;
    const ours = rows.some((r) => r.version === first.version && r.name === first.name) || (rows.length === 0 && tables.length === 1);
    if (!ours) return { kind: 'foreign', tables };
    return { kind: 'wbsync', applied: new Set(rows.map((r) => r.version)) };
  } finally {
    db.close();
  }
}

const NEW_DB_HINT = 'run `wbsync sync --full` to make the first snapshot, or pass --db PATH (or set `db` in the configuration) to the database you have';

/**
 * Refuses (exit 2) what a command cannot use. `purpose`: 'write' (a pass: a missing or empty file
 * becomes a new database), 'change' (prune, rollback…: the database must exist; it may be
 * migrated), 'read' (it must exist with the current schema).
 */
export function refuseUnusable(file: string, id: DbIdentity, purpose: 'read' | 'change' | 'write'): void {
  switch (id.kind) {
    case 'missing':
      if (purpose !== 'write') throw new WbsyncError('config', `there is no database at ${file} yet`, { hint: NEW_DB_HINT, details: { db: file } });
      return;
    case 'folder':
      throw new WbsyncError('config', `the database path ${file} is a folder, not a database file`, {
        hint: `pass the database file, e.g. ${commandLine(['--db', path.join(file, 'wbsync.db')])}`,
        details: { db: file },
      });
    case 'empty':
      if (purpose !== 'write') throw new WbsyncError('config', `the database ${file} is empty: no sync has written to it yet`, { hint: NEW_DB_HINT, details: { db: file } });
      return;
    case 'not-sqlite':
      throw new WbsyncError('config', `${file} is not a SQLite database; wbsync left it untouched`, {
        hint: 'check --db (or `db` in the configuration): it must name a wbsync database, or a new file for wbsync to create',
        details: { db: file },
      });
    case 'foreign':
      throw new WbsyncError('config', `${file} is a SQLite database but not a wbsync one (it holds ${id.tables.slice(0, 4).join(', ')}${id.tables.length > 4 ? ', …' : ''}); wbsync left it untouched`, {
        hint: 'check --db (or `db` in the configuration): it must name a wbsync database, or a new file for wbsync to create',
        details: { db: file, tables: id.tables.slice(0, 20) },
      });
    case 'wbsync': {
      const known = new Set(MIGRATIONS.map((m) => m.version));
      const unknown = [...id.applied].filter((v) => !known.has(v)).sort((a, b) => a - b);
      if (unknown.length > 0) {
        throw new WbsyncError('storage', `database has migrations this wbsync does not know: ${unknown.join(', ')} (${file} was written by a newer wbsync; left untouched)`, {
          hint: 'upgrade wbsync to open it (never downgrade a database)',
          details: { db: file, unknown },
        });
      }
      // a read needs the current schema: refused here, before a connection could leave -shm/-wal
      if (purpose === 'read') checkAppliedCurrent(id.applied);
      return;
    }
  }
}

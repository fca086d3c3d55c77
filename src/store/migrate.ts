// Applies the numbered migrations not yet recorded in schema_migrations, each in its own
// transaction (BEGIN IMMEDIATE, so two processes opening a fresh file do not both apply one).
import type Database from 'better-sqlite3';
import { WbsyncError } from '../domain/errors.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';
import { buildDeferredIndexes } from './write/bulk-fill.js';

export function appliedVersions(db: Database.Database): Set<number> {
  const exists = db
    .prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`)
    .get();
  if (!exists) return new Set();
  return new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
}

function checkNotNewer(applied: Set<number>, migrations: readonly Migration[]): void {
  const known = new Set(migrations.map((m) => m.version));
  const unknown = [...applied].filter((v) => !known.has(v));
  if (unknown.length > 0) {
    throw new WbsyncError('storage', `database has migrations this wbsync does not know: ${unknown.join(', ')}`, {
      hint: 'it was written by a newer wbsync; upgrade wbsync (never downgrade a database)',
    });
  }
}

/** Returns the versions applied now. */
export function migrate(db: Database.Database, now: () => string, migrations: readonly Migration[] = MIGRATIONS): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const applied = appliedVersions(db);
  checkNotNewer(applied, migrations);
  // a migration may drop or rebuild an index a first fill left out (bulk-fill.ts): every index is
  // back before any migration runs, whoever's pass left it out (that pass's end then finds none)
  if (migrations.some((m) => !applied.has(m.version))) buildDeferredIndexes(db);
  const done: number[] = [];
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    db.exec('BEGIN IMMEDIATE');
    try {
      // re-read inside the write lock: another process may have applied it meanwhile
      const already = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(m.version);
      if (!already) {
        db.exec(m.sql);
        m.run?.(db);
        db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, now());
        done.push(m.version);
      }
      db.exec('COMMIT');
    } catch (e) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw e;
    }
  }
  return done;
}

/** For read-only opens: refuse a database whose schema is missing or behind this wbsync's. */
export function checkSchemaCurrent(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS): void {
  checkAppliedCurrent(appliedVersions(db), migrations);
}

/** The same check on the versions read beforehand (open-inspect.ts, before any real connection). */
export function checkAppliedCurrent(applied: Set<number>, migrations: readonly Migration[] = MIGRATIONS): void {
  checkNotNewer(applied, migrations);
  const missing = migrations.filter((m) => !applied.has(m.version));
  if (missing.length > 0) {
    throw new WbsyncError('storage', `database schema is behind (missing migrations ${missing.map((m) => m.version).join(', ')})`, {
      hint: 'open it once read-write (e.g. `wbsync sync`) so wbsync can migrate it',
    });
  }
}

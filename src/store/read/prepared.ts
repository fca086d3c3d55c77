// Statements the console's recover previews run on every request, compiled once per connection:
// the previews' SQL is a handful of fixed texts (some a few kilobytes, which SQLite takes about as
// long to compile as a small module's read), so each is kept with its connection. Only compiled
// SQL is kept, never a result. A caller sets the statement's mode (raw, pluck) every time it uses it.

import type Database from 'better-sqlite3';

/** More texts than the previews have means a caller builds them from data: start over. */
const MAX = 64;
const byDb = new WeakMap<Database.Database, Map<string, Database.Statement>>();

export function prepared(db: Database.Database, sql: string): Database.Statement {
  let cache = byDb.get(db);
  if (!cache) byDb.set(db, (cache = new Map()));
  let stmt = cache.get(sql);
  if (!stmt) {
    if (cache.size >= MAX) cache.clear();
    stmt = db.prepare(sql);
    cache.set(sql, stmt);
  }
  return stmt;
}

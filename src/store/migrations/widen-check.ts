// Widening a CHECK constraint changes no stored row, so the table definition is edited in place —
// the procedure SQLite documents for such changes (ALTER TABLE, "making other kinds of table schema
// changes"): the schema text rewritten and schema_version bumped, inside the migration's
// transaction, then checked. Shared by the migrations that widen restore_runs.kind.
import type Database from 'better-sqlite3';

export function widenCheck(db: Database.Database, table: string, from: string, to: string, madeBy: string): void {
  const sql = db.prepare(`SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?`).pluck().get(table) as string;
  if (!sql.includes(from)) throw new Error(`${table} is not as ${madeBy} made it: cannot widen its check`);
  const version = db.pragma('schema_version', { simple: true }) as number;
  db.unsafeMode(true);
  try {
    db.pragma('writable_schema = ON');
    db.prepare(`UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = ?`).run(sql.replace(from, to), table);
    db.pragma(`schema_version = ${version + 1}`);
    db.pragma('writable_schema = OFF');
  } finally {
    db.unsafeMode(false);
  }
  const check = db.pragma('quick_check', { simple: true });
  if (check !== 'ok') throw new Error(`schema edit left the database inconsistent: ${String(check)}`);
}

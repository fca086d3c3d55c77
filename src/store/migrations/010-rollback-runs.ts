// Rollback runs share the restore journal (ids, steps, refusals, paused recipes): restore_runs.kind
// gains 'rollback'. Widening a CHECK constraint changes no stored row, so the table definition is
// edited in place — the procedure SQLite documents for such changes (ALTER TABLE, "making other
// kinds of table schema changes"): the schema text rewritten and schema_version bumped, inside the
// migration's transaction, then checked.
import type { Migration } from './types.js';

const FROM = "kind TEXT NOT NULL CHECK (kind IN ('module', 'records'))";
const TO = "kind TEXT NOT NULL CHECK (kind IN ('module', 'records', 'rollback'))";

export const migration010: Migration = {
  version: 10,
  name: 'rollback-runs',
  sql: '',
  run(db) {
    const table = db.prepare(`SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'restore_runs'`).pluck().get() as string;
    if (!table.includes(FROM)) throw new Error('restore_runs is not as migration 005 made it: cannot widen its kind check');
    const version = db.pragma('schema_version', { simple: true }) as number;
    db.unsafeMode(true);
    try {
      db.pragma('writable_schema = ON');
      db.prepare(`UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = 'restore_runs'`).run(table.replace(FROM, TO));
      db.pragma(`schema_version = ${version + 1}`);
      db.pragma('writable_schema = OFF');
    } finally {
      db.unsafeMode(false);
    }
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new Error(`schema edit left the database inconsistent: ${String(check)}`);
  },
};

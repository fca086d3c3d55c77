// The cells' (record, column) index carries the cell's id too, so that reading a module's cells
// through it — a module's cells at a snapshot, the cells that changed between two snapshots paired
// up by the console's recover previews (store/read/module-census.ts) — never visits the table. Same name
// and leading columns as 012 made it, so every query planned on it before is planned on it still.
// A database that has not had 012 yet (migrations applied out of order) is left for 012 to index.
import type { Migration } from './types.js';

export const migration022: Migration = {
  version: 22,
  name: 'cell-pairs-covering',
  sql: '',
  run: (db) => {
    const had = db.prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = 'cell_versions_record_column'`).get();
    if (!had) return;
    db.exec(`DROP INDEX cell_versions_record_column;
      CREATE INDEX cell_versions_record_column ON cell_versions (record_id, column_id, valid_from, valid_to, value, id);`);
  },
};

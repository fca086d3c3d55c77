// A full pass into an empty version table (the first backup of a workspace) leaves out the table's
// secondary indexes the writer's own statements do not use, inserts, and builds them again once
// before the pass ends (src/store/write/bulk-fill.ts): one sort per index instead of ~2 µs of
// B-tree work per row per index. Each index left out is recorded here, with the SQL sqlite_schema
// held for it, in the same transaction that drops it, so whatever ends the pass — its end, a
// failure, a kill -9 — the next open finds the list and builds every index back from it.
import type { Migration } from './types.js';

export const migration031: Migration = {
  version: 31,
  name: 'deferred-indexes',
  sql: `
CREATE TABLE deferred_indexes (
  name TEXT PRIMARY KEY,
  tbl_name TEXT NOT NULL,
  sql TEXT NOT NULL,                                        -- as sqlite_schema held it
  snapshot_id INTEGER NOT NULL                              -- the pass that left it out
);
`,
};

// Bulk load on a first fill. A full pass into an EMPTY version table (the first backup of a
// workspace, the bench) inserts every row of it: each secondary index costs ~2 µs of B-tree work
// per row there (issue #37), while building the index once at the end is one sort of the finished
// table — about half the work. So a full pass drops the indexes of such a table that the writer's
// own statements do not use, and builds them again before the snapshot is marked complete.
//
// The SQL an index is built from is the one sqlite_schema held for it (written by the
// migrations), copied into deferred_indexes in the transaction that drops it: there is no second
// copy of any definition, and whatever ends the pass, the list says what to build back —
//   - the pass's end (complete or failed): SqliteStore.finishSnapshot, in the transaction that marks it;
//   - a pass that died (kill -9, power cut): the next open of the database, read-write or read-only
//     (open.ts), the next pass's check for interrupted snapshots, and before any migration runs;
//   - an export copy: cutBackTo (nothing runs in a copy).
// Readers meanwhile (console, `wbsync query` on a database in its first pass) plan around the
// missing indexes: slower, never wrong; SQLite builds an index in one transaction, so nobody sees
// half of one.
import type Database from 'better-sqlite3';
import { ownerAlive } from './owner-alive.js';

/**
 * The tables left without indexes during a first fill, and per table the indexes kept because the
 * writer's statements use them (proved by EXPLAIN QUERY PLAN in bulk-fill.test.ts): the current
 * version by key (`_current`, also what keeps one current version per key), and a record's cells
 * (the cell listings and gone marks: `record_id = ?`, `record_id IN (...)`); and one kept because
 * it costs next to nothing during the fill: `activity_versions_record_created`, partial over the
 * record_created rows (about 1 in 9 of the feed), whose build at the end costs a scan of the whole
 * feed (about 0.1 s of the pass's tail on the large seed) against no measurable insert cost.
 * Every other index of the table, any later migration's included, is left out.
 */
export const FILL_KEEPS: Readonly<Record<string, readonly string[]>> = {
  activity_versions: ['activity_versions_current', 'activity_versions_record_created'],
  cell_versions: ['cell_versions_current', 'cell_versions_record_column'],
};

/** The version table of each kind a pass may ask to build back on its own (WriteBatch.indexesBack). */
const FILL_TABLE_OF: Readonly<Record<'activity' | 'cell', string>> = { activity: 'activity_versions', cell: 'cell_versions' };

/** The tables whose deferred indexes an `indexesBack` asks for: every FILL_KEEPS table for `true`. */
export const fillTables = (which: true | ReadonlyArray<'activity' | 'cell'>): Set<string> =>
  new Set(which === true ? Object.keys(FILL_KEEPS) : which.map((k) => FILL_TABLE_OF[k]));

/** The page cache while indexes are built (KiB, as cache_size takes it when negative). */
const BUILD_CACHE_KIB = -2000;

interface Deferred {
  name: string;
  tbl_name: string;
  sql: string;
  snapshot_id: number;
}

const hasTable = (db: Database.Database): boolean =>
  db.prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'deferred_indexes'`).get() !== undefined;

/** Drops the non-kept indexes of every FILL_KEEPS table that is empty, for snapshot S. Returns their names. */
export function deferIndexesForFill(db: Database.Database, snapshotId: number): string[] {
  if (!hasTable(db)) return [];
  const dropped: string[] = [];
  db.transaction(() => {
    for (const [table, keep] of Object.entries(FILL_KEEPS)) {
      if (db.prepare(`SELECT 1 FROM ${table} LIMIT 1`).get() !== undefined) continue;
      const indexes = db
        .prepare(`SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name`)
        .all(table) as Array<{ name: string; sql: string }>;
      for (const ix of indexes) {
        if (keep.includes(ix.name)) continue;
        db.prepare('INSERT INTO deferred_indexes (name, tbl_name, sql, snapshot_id) VALUES (?, ?, ?, ?)').run(ix.name, table, ix.sql, snapshotId);
        db.exec(`DROP INDEX "${ix.name.replaceAll('"', '""')}"`);
        dropped.push(ix.name);
      }
    }
  })();
  return dropped;
}

/** Indexes left out and not built back yet (none if the table does not exist: before migration 031). */
export function deferredIndexes(db: Database.Database): Deferred[] {
  if (!hasTable(db)) return [];
  return db.prepare('SELECT name, tbl_name, sql, snapshot_id FROM deferred_indexes ORDER BY name').all() as Deferred[];
}

/**
 * Builds back the deferred indexes `which` selects (all by default), inside the caller's
 * transaction if one is open, else in one of its own. Returns their names.
 */
export function buildDeferredIndexes(db: Database.Database, which: (d: Deferred) => boolean = () => true): string[] {
  const todo = deferredIndexes(db).filter(which);
  if (todo.length === 0) return [];
  const run = (): void => {
    for (const d of todo) {
      const there = db.prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = ?`).get(d.name);
      if (!there) db.exec(d.sql);
      db.prepare('DELETE FROM deferred_indexes WHERE name = ?').run(d.name);
    }
  };
  // A build reads the whole table through this connection's page cache and sorts in memory up to
  // the cache's size: at the default 16 MB that is ~30 MB more peak RSS at the end of a pass (the
  // large seed's 12 indexes) for no measurable CPU; 2 MB costs ~1 MB.
  const cache = db.pragma('cache_size', { simple: true }) as number;
  db.pragma(`cache_size = ${BUILD_CACHE_KIB}`);
  try {
    if (db.inTransaction) run();
    else db.transaction(run).immediate();
  } finally {
    db.pragma(`cache_size = ${cache}`);
  }
  return todo.map((d) => d.name);
}

/** Is snapshot S a pass still being written by a live process (this host)? */
function passAlive(db: Database.Database, snapshotId: number): boolean {
  const r = db.prepare('SELECT status, owner_pid, owner_host FROM snapshot_runs WHERE id = ?').get(snapshotId) as
    | { status: string; owner_pid: number | null; owner_host: string | null }
    | undefined;
  return r !== undefined && r.status === 'running' && ownerAlive(r.owner_pid, r.owner_host);
}

/** The deferred indexes of passes no live process is writing (ended, failed, killed). */
export const abandonedFills = (db: Database.Database): Deferred[] => deferredIndexes(db).filter((d) => !passAlive(db, d.snapshot_id));

/** Builds back what passes no live process is writing left out. Returns the names built. */
export function buildAbandonedIndexes(db: Database.Database): string[] {
  if (abandonedFills(db).length === 0) return [];
  return buildDeferredIndexes(db, (d) => !passAlive(db, d.snapshot_id));
}

// Small reads other rooms show or decide by, one statement each: rows per reporting view (the
// daemon's /metrics, the demo), the newest activity row, the workspaces' ids, the newest snapshot,
// and the complete snapshot a pass is compared against (the tripwire).

import type Database from 'better-sqlite3';

export const REPORTING_VIEWS = ['workspaces', 'members', 'modules', 'collections', 'columns', 'records', 'cells', 'amendments', 'automations', 'activity'] as const;

/** Rows in each of `views` (names of the store's own views, never input). */
export function viewRowCounts(db: Database.Database, views: readonly string[]): Record<string, number> {
  const rows: Record<string, number> = {};
  for (const v of views) rows[v] = db.prepare(`SELECT count(*) FROM "${v}"`).pluck().get() as number;
  return rows;
}

/** created_at of the newest activity row (null: none). */
export function newestActivityAt(db: Database.Database): string | null {
  return db.prepare('SELECT max(created_at) FROM activity').pluck().get() as string | null;
}

/** The ids of the workspaces in the latest state. */
export function workspaceIds(db: Database.Database): string[] {
  return db.prepare('SELECT id FROM workspaces').pluck().all() as string[];
}

/** The newest snapshot's id, whatever its status (null: none yet). */
export function newestSnapshotId(db: Database.Database): number | null {
  return db.prepare('SELECT max(id) FROM snapshots').pluck().get() as number | null;
}

/** The newest complete snapshot before `id` that no prune forgot. */
export function completeSnapshotBefore(db: Database.Database, id: number): number | null {
  return db.prepare(`SELECT max(id) FROM snapshot_runs WHERE status = 'complete' AND id < ? AND id NOT IN (SELECT snapshot_id FROM snapshot_forgets)`).pluck().get(id) as number | null;
}

/** Every row a reporting query returns (the queries in reporting-queries.ts, never input). */
export function runReportingQuery(db: Database.Database, sql: string): Record<string, unknown>[] {
  return db.prepare(sql).all() as Record<string, unknown>[];
}

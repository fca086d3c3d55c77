// Per-workspace activity cursors. Written only inside apply(), with the data they cover.
import type Database from 'better-sqlite3';
import type { Cursor } from './port.js';

interface CursorRow {
  workspace_id: string;
  cursor: string;
  snapshot_id: number;
  updated_at: string;
}

export class Cursors {
  constructor(
    private readonly db: Database.Database,
    private readonly now: () => string,
  ) {}

  get(workspaceId: string): Cursor | null {
    const r = this.db.prepare('SELECT * FROM cursors WHERE workspace_id = ?').get(workspaceId) as CursorRow | undefined;
    return r ? { workspaceId: r.workspace_id, cursor: r.cursor, snapshotId: r.snapshot_id, updatedAt: r.updated_at } : null;
  }

  set(workspaceId: string, cursor: string, snapshotId: number): void {
    this.db
      .prepare(
        `INSERT INTO cursors (workspace_id, cursor, snapshot_id, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (workspace_id) DO UPDATE SET cursor = excluded.cursor, snapshot_id = excluded.snapshot_id, updated_at = excluded.updated_at`,
      )
      .run(workspaceId, cursor, snapshotId, this.now());
  }

  clear(workspaceId: string): void {
    this.db.prepare('DELETE FROM cursors WHERE workspace_id = ?').run(workspaceId);
  }

  knownActivityIds(ids: string[]): Set<string> {
    if (ids.length === 0) return new Set();
    const rows = this.db
      .prepare('SELECT DISTINCT id FROM activity_versions WHERE id IN (SELECT value FROM json_each(?))')
      .pluck()
      .all(JSON.stringify(ids)) as string[];
    return new Set(rows);
  }
}

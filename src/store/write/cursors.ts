// Per-workspace sync bookkeeping: activity cursors and when each part was last read in full.
// Written only inside apply(), with the data they cover.
import type Database from 'better-sqlite3';
import type { Cursor, PartRef, VerifiedPart } from '../port.js';

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

  loggedModuleDeletions(workspaceId: string, modules: ReadonlyArray<{ id: string; name: string }>): Set<string> {
    if (modules.length === 0) return new Set();
    const rows = this.db
      .prepare(`SELECT DISTINCT module_id AS id, target_name AS name FROM activity_versions WHERE workspace_id = ? AND action = 'module_deleted'`)
      .all(workspaceId) as Array<{ id: string | null; name: string | null }>;
    return deletionsNamed(modules, rows);
  }

  /** Marks parts read in full as of snapshot S's start. */
  private markStmt: Database.Statement | undefined;
  private partsStmt: Database.Statement | undefined;

  markVerified(parts: readonly PartRef[], snapshotId: number): void {
    const stmt = (this.markStmt ??= this.db.prepare(
      `INSERT INTO verified_parts (workspace_id, kind, part_id, verified_at, snapshot_id)
       VALUES (?, ?, ?, (SELECT started_at FROM snapshot_runs WHERE id = ?), ?)
       ON CONFLICT (workspace_id, kind, part_id) DO UPDATE SET verified_at = excluded.verified_at, snapshot_id = excluded.snapshot_id`,
    ));
    for (const p of parts) stmt.run(p.workspaceId, p.kind, p.id, snapshotId, snapshotId);
  }

  verifiedParts(workspaceId: string): VerifiedPart[] {
    this.partsStmt ??= this.db.prepare(
      `WITH parts AS (
           SELECT id AS workspace_id, 'workspace' AS kind, id AS part_id FROM workspace_versions WHERE id = ? AND valid_to IS NULL
           UNION ALL
           SELECT workspace_id, 'module', id FROM module_versions WHERE workspace_id = ? AND valid_to IS NULL
         )
         SELECT p.workspace_id, p.kind, p.part_id,
           COALESCE(v.verified_at,
             (SELECT started_at FROM snapshot_runs WHERE kind = 'full' AND status = 'complete' ORDER BY id DESC LIMIT 1),
             (SELECT MIN(started_at) FROM snapshot_runs)) AS verified_at
         FROM parts p LEFT JOIN verified_parts v ON v.workspace_id = p.workspace_id AND v.kind = p.kind AND v.part_id = p.part_id
         ORDER BY verified_at, p.kind DESC, p.part_id`,
    );
    const rows = this.partsStmt.all(workspaceId, workspaceId) as Array<{ workspace_id: string; kind: 'workspace' | 'module'; part_id: string; verified_at: string | null }>;
    return rows.map((r) => ({ workspaceId: r.workspace_id, kind: r.kind, id: r.part_id, verifiedAt: r.verified_at ?? new Date(0).toISOString() }));
  }
}

/** Among `modules`, those a `module_deleted` row names: by id, or by name where the row has no id. */
export function deletionsNamed(modules: ReadonlyArray<{ id: string; name: string }>, rows: ReadonlyArray<{ id: string | null; name: string | null }>): Set<string> {
  const ids = new Set(rows.map((r) => r.id).filter((id): id is string => id !== null));
  const names = new Set(rows.filter((r) => r.id === null && r.name !== null).map((r) => r.name!));
  return new Set(modules.filter((m) => ids.has(m.id) || names.has(m.name)).map((m) => m.id));
}

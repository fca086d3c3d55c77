// Snapshot rows: one per sync pass, with its status, counts and summary.
import os from 'node:os';
import type Database from 'better-sqlite3';
import { WbsyncError } from '../../domain/errors.js';
import type { SnapshotInfo, SnapshotKind, SnapshotStatus } from '../port.js';
import { ownerAlive } from './owner-alive.js';

interface SnapshotRow {
  id: number;
  kind: SnapshotKind;
  status: SnapshotStatus;
  started_at: string;
  finished_at: string | null;
  counts: string;
  summary: string;
  owner_pid: number | null;
  owner_host: string | null;
}

const toInfo = (r: SnapshotRow): SnapshotInfo => ({
  id: r.id,
  kind: r.kind,
  status: r.status,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
  counts: JSON.parse(r.counts) as Record<string, number>,
  summary: JSON.parse(r.summary) as Record<string, unknown>,
});

/** Snapshots a prune has decided to forget are not shown while it finishes (see src/store/retention/prune.ts). */
const SHOWN = 'id NOT IN (SELECT snapshot_id FROM snapshot_forgets)';

export class Snapshots {
  constructor(
    private readonly db: Database.Database,
    private readonly now: () => string,
  ) {}

  begin(kind: SnapshotKind): number {
    const r = this.db
      .prepare(`INSERT INTO snapshot_runs (kind, status, started_at, owner_pid, owner_host) VALUES (?, 'running', ?, ?, ?)`)
      .run(kind, this.now(), process.pid, os.hostname());
    return Number(r.lastInsertRowid);
  }

  finish(id: number, status: Exclude<SnapshotStatus, 'running'>, summary: Record<string, unknown>): void {
    const r = this.db
      .prepare(`UPDATE snapshot_runs SET status = ?, finished_at = ?, summary = ? WHERE id = ? AND status = 'running'`)
      .run(status, this.now(), JSON.stringify(summary), id);
    if (r.changes === 0) {
      const cur = this.get(id);
      throw new WbsyncError('internal', cur ? `snapshot ${id} is already ${cur.status}` : `no snapshot ${id}`);
    }
  }

  /**
   * Marks 'running' snapshots as failed, except those `held` by this store and those whose owner
   * is another live process on this host (a pass in progress there). Within this process, a
   * snapshot not held by this store was left by a store that went away: interrupted.
   */
  failInterrupted(held: ReadonlySet<number>): number[] {
    const rows = this.db
      .prepare(`SELECT id, owner_pid, owner_host FROM snapshot_runs WHERE status = 'running' ORDER BY id`)
      .all() as Array<{ id: number; owner_pid: number | null; owner_host: string | null }>;
    const ids = rows
      .filter((r) => !held.has(r.id))
      .filter((r) => r.owner_pid === process.pid || !ownerAlive(r.owner_pid, r.owner_host))
      .map((r) => r.id);
    const mark = this.db.prepare(
      `UPDATE snapshot_runs SET status = 'failed', finished_at = ?,
         summary = json_set(summary, '$.interrupted', json('true')) WHERE id = ?`,
    );
    this.db.transaction(() => {
      for (const id of ids) mark.run(this.now(), id);
    })();
    return ids;
  }

  list(): SnapshotInfo[] {
    return (this.db.prepare(`SELECT * FROM snapshot_runs WHERE ${SHOWN} ORDER BY id`).all() as SnapshotRow[]).map(toInfo);
  }

  get(id: number): SnapshotInfo | null {
    const r = this.db.prepare(`SELECT * FROM snapshot_runs WHERE id = ? AND ${SHOWN}`).get(id) as SnapshotRow | undefined;
    return r ? toInfo(r) : null;
  }

  status(id: number): SnapshotStatus | null {
    return (this.db.prepare('SELECT status FROM snapshot_runs WHERE id = ?').pluck().get(id) as SnapshotStatus | undefined) ?? null;
  }

  latestComplete(): number | null {
    return (this.db.prepare(`SELECT max(id) FROM snapshot_runs WHERE status = 'complete' AND ${SHOWN}`).pluck().get() as number | null) ?? null;
  }

  /** Adds a batch's written/gone counts (keys: entity kind, and `<kind>.gone`). Inside the batch's transaction. */
  addCounts(id: number, written: Record<string, number>, gone: Record<string, number>): void {
    const raw = this.db.prepare('SELECT counts FROM snapshot_runs WHERE id = ?').pluck().get(id) as string;
    const counts = JSON.parse(raw) as Record<string, number>;
    for (const [k, n] of Object.entries(written)) counts[k] = (counts[k] ?? 0) + n;
    for (const [k, n] of Object.entries(gone)) counts[`${k}.gone`] = (counts[`${k}.gone`] ?? 0) + n;
    this.db.prepare('UPDATE snapshot_runs SET counts = ? WHERE id = ?').run(JSON.stringify(counts), id);
  }
}

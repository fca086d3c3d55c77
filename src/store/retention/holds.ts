// Snapshots held from pruning: a tripwire holds the last snapshot before mass changes, for
// HOLD_DAYS or until someone releases it (`wbsync snapshots --release N`).

import type Database from 'better-sqlite3';
import { WbsyncError } from '../../domain/errors.js';
import { HOLD_DAYS } from './protection.js';

export interface Hold {
  snapshotId: number;
  reason: string;
  heldAt: string;
  expiresAt: string;
}

/** Holds snapshot `id` (a later hold of the same snapshot extends it and keeps both reasons). */
export function holdSnapshot(db: Database.Database, id: number, reason: string, now: Date, days = HOLD_DAYS): Hold {
  const heldAt = now.toISOString();
  const expiresAt = new Date(now.getTime() + days * 86_400_000).toISOString();
  db.prepare(
    `INSERT INTO snapshot_holds (snapshot_id, reason, held_at, expires_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (snapshot_id) DO UPDATE SET
       reason = CASE WHEN released_at IS NULL AND instr(reason, excluded.reason) = 0 THEN reason || '; ' || excluded.reason ELSE excluded.reason END,
       held_at = CASE WHEN released_at IS NULL THEN held_at ELSE excluded.held_at END,
       expires_at = max(CASE WHEN released_at IS NULL THEN expires_at ELSE '' END, excluded.expires_at),
       released_at = NULL`,
  ).run(id, reason, heldAt, expiresAt);
  return activeHolds(db, now).find((h) => h.snapshotId === id)!;
}

/** Holds in force now, by snapshot id. */
export function activeHolds(db: Database.Database, now: Date): Hold[] {
  return (
    db.prepare(`SELECT snapshot_id, reason, held_at, expires_at FROM snapshot_holds WHERE released_at IS NULL AND expires_at > ? ORDER BY snapshot_id`).all(now.toISOString()) as {
      snapshot_id: number;
      reason: string;
      held_at: string;
      expires_at: string;
    }[]
  ).map((r) => ({ snapshotId: r.snapshot_id, reason: r.reason, heldAt: r.held_at, expiresAt: r.expires_at }));
}

/** Lets a held snapshot be pruned again. Throws a usage error when it is not held. */
export function releaseHold(db: Database.Database, id: number, now: Date): Hold {
  const held = activeHolds(db, now).find((h) => h.snapshotId === id);
  if (!held) {
    const ids = activeHolds(db, now).map((h) => h.snapshotId);
    throw new WbsyncError('usage', `snapshot ${id} is not held`, { hint: ids.length ? `held now: ${ids.join(', ')}` : 'no snapshot is held now' });
  }
  db.prepare('UPDATE snapshot_holds SET released_at = ? WHERE snapshot_id = ?').run(now.toISOString(), id);
  return held;
}

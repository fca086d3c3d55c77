// What no prune may forget besides the latest snapshot: snapshots a tripwire holds (until released
// or 30 days) and snapshots an unfinished restore or rollback journal works from (running again
// resumes it from the same snapshot).

import type Database from 'better-sqlite3';
import { commandLine } from '../../domain/shell-command.js';

export interface Protection {
  id: number;
  reason: string;
}

/** How long a tripwire holds a snapshot unless released first. */
export const HOLD_DAYS = 30;

export function protectedSnapshots(db: Database.Database, latest: number, now: Date): Protection[] {
  const out: Protection[] = [{ id: latest, reason: 'latest complete snapshot' }];
  const holds = db.prepare(`SELECT snapshot_id, reason, expires_at FROM snapshot_holds WHERE released_at IS NULL AND expires_at > ?`).all(now.toISOString()) as { snapshot_id: number; reason: string; expires_at: string }[];
  for (const h of holds) out.push({ id: h.snapshot_id, reason: `held until ${h.expires_at} (${h.reason}): ${commandLine(['wbsync', 'snapshots', '--release', h.snapshot_id])} lets it go` });
  const runs = db.prepare(`SELECT id, kind, snapshot_id, status FROM restore_runs WHERE status <> 'complete'`).all() as { id: number; kind: string; snapshot_id: number; status: string }[];
  for (const r of runs) out.push({ id: r.snapshot_id, reason: `${r.kind === 'rollback' ? 'rollback' : 'restore'} run ${r.id} (${r.status}) works from it: run the same command again to finish it` });
  return out;
}

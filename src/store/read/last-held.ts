// The last complete snapshot that held each of some records (retention's forgotten ones left out):
// snapshotsHolding's answer for many records in one statement, for the rollback preview's stand-in
// of what the service still holds of records no listing shows (ui/recover-stranded.ts).

import type Database from 'better-sqlite3';
import { prepared } from './prepared.js';

// (each version's last snapshot sought backwards from its end on snapshot_runs' key: a join of
// every version with every snapshot costs the versions times the snapshots)
const SQL = `SELECT v.id, max((SELECT max(s.id) FROM snapshot_runs s WHERE s.id >= v.valid_from AND s.id < coalesce(v.valid_to, 9223372036854775807)
    AND s.status = 'complete' AND s.id NOT IN (SELECT snapshot_id FROM snapshot_forgets)))
  FROM record_versions v WHERE v.id IN (SELECT value FROM json_each(@ids)) GROUP BY v.id`;

/** Record id → the last complete snapshot holding it; a record no such snapshot holds is absent. */
export function lastSnapshotsHolding(db: Database.Database, recordIds: readonly string[]): Map<string, number> {
  if (!recordIds.length) return new Map();
  const rows = prepared(db, SQL).raw(true).all({ ids: JSON.stringify([...new Set(recordIds)]) }) as Array<[string, number | null]>;
  return new Map(rows.filter((r): r is [string, number] => r[1] !== null));
}

// The alerts' episode state (alert_state, migration 011): one JSON document per key, so an episode
// announced before a restart is not announced again. src/alerts/ decides what it holds.

import type Database from 'better-sqlite3';

/** The state kept under `key`, as stored (JSON), or undefined. */
export function loadAlertState(db: Database.Database, key: string): string | undefined {
  return db.prepare('SELECT state FROM alert_state WHERE key = ?').pluck().get(key) as string | undefined;
}

/** Keeps `state` (JSON) under `key`. */
export function saveAlertState(db: Database.Database, key: string, state: string, updatedAt: string): void {
  db.prepare('INSERT INTO alert_state (key, state, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at').run(key, state, updatedAt);
}

/** Forgets `key`. */
export function forgetAlertState(db: Database.Database, key: string): void {
  db.prepare('DELETE FROM alert_state WHERE key = ?').run(key);
}

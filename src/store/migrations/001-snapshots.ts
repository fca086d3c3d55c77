// Snapshots (one row per sync pass) and per-workspace activity cursors.
import type { Migration } from './types.js';

export const migration001: Migration = {
  version: 1,
  name: 'snapshots',
  sql: `
CREATE TABLE snapshot_runs (
  -- AUTOINCREMENT: ids only grow and are never reused (even after an export drops later ones),
  -- because "as of N" compares ids.
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL CHECK (kind IN ('full', 'incremental')),
  status TEXT NOT NULL CHECK (status IN ('running', 'complete', 'failed')),
  started_at TEXT NOT NULL,
  finished_at TEXT,
  counts TEXT NOT NULL DEFAULT '{}',
  summary TEXT NOT NULL DEFAULT '{}',
  -- who runs it, so verify can tell a pass in progress from one left by a crash
  owner_pid INTEGER,
  owner_host TEXT
);
CREATE INDEX snapshot_runs_status ON snapshot_runs (status, id);

CREATE TABLE cursors (
  workspace_id TEXT PRIMARY KEY,
  cursor TEXT NOT NULL,
  snapshot_id INTEGER NOT NULL REFERENCES snapshot_runs (id),
  updated_at TEXT NOT NULL
);
`,
  exportCleanup: 'DELETE FROM cursors;',
};

// The restore journal (owned by src/store/ledgers/restore-journal.ts): one row per restore run, the id map
// written as each object is created, steps finished, and automations paused for the run. A row of
// restore_ids with new_id NULL is a create in flight: on resume it is looked up before any retry.
import type { Migration } from './types.js';

export const migration005: Migration = {
  version: 5,
  name: 'restore-journal',
  sql: `
CREATE TABLE restore_runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL CHECK (kind IN ('module', 'records')),
  -- what makes "the same command": kind, snapshot, source ids, target workspace, copy or not
  run_key TEXT NOT NULL,
  snapshot_id INTEGER NOT NULL,
  source_ids TEXT NOT NULL,          -- JSON array of old ids (the module, or the records)
  target_workspace_id TEXT,
  new_module_id TEXT,
  status TEXT NOT NULL CHECK (status IN ('running', 'complete', 'failed')),
  started_at TEXT NOT NULL,
  finished_at TEXT,
  options TEXT NOT NULL DEFAULT '{}', -- JSON: asCopy, pauseAutomations, attribution
  summary TEXT NOT NULL DEFAULT '{}'  -- JSON: counts, notRestored, requests
);
CREATE INDEX restore_runs_key ON restore_runs (run_key, id);

CREATE TABLE restore_ids (
  run_id INTEGER NOT NULL REFERENCES restore_runs (id),
  kind TEXT NOT NULL,                -- module, collection, column, record, subrecord, cell, amendment, automation
  old_id TEXT NOT NULL,
  new_id TEXT,                       -- NULL while the create is in flight
  created_at TEXT NOT NULL,
  PRIMARY KEY (run_id, old_id)
);
CREATE INDEX restore_ids_new ON restore_ids (new_id);

CREATE TABLE restore_steps (
  run_id INTEGER NOT NULL REFERENCES restore_runs (id),
  step_key TEXT NOT NULL,
  done_at TEXT NOT NULL,
  PRIMARY KEY (run_id, step_key)
);

CREATE TABLE restore_paused (
  run_id INTEGER NOT NULL REFERENCES restore_runs (id),
  automation_id TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('paused', 'reactivated')),
  PRIMARY KEY (run_id, automation_id)
);
`,
  // A restore journal belongs to this database's life, not to the service's state.
  exportCleanup: `DELETE FROM restore_paused; DELETE FROM restore_steps; DELETE FROM restore_ids; DELETE FROM restore_runs;`,
};

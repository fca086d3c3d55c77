// Writes the service refused during a restore run (a 4xx for one object): the run records them and
// goes on, a resumed run does not send them again, and the result lists them with the reason.
import type { Migration } from './types.js';

export const migration008: Migration = {
  version: 8,
  name: 'restore-refusals',
  sql: `
CREATE TABLE restore_refusals (
  run_id INTEGER NOT NULL,           -- restore_runs.id (no foreign key: export cleanups run in migration order)
  step_key TEXT NOT NULL,
  old_id TEXT,                       -- the object the step would have made (its dependents skip too)
  entity TEXT NOT NULL,
  entity_id TEXT NOT NULL,
  label TEXT NOT NULL,
  reason TEXT NOT NULL,
  status INTEGER,                    -- the HTTP status; NULL when a dependency was refused
  value TEXT,                        -- the refused value, for a cell
  refused_at TEXT NOT NULL,
  PRIMARY KEY (run_id, step_key)
);
`,
  exportCleanup: `DELETE FROM restore_refusals;`,
};

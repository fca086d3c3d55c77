// Retention bookkeeping (owned by store/retention/ and store/ledgers/): snapshots held from pruning (a
// tripwire holds the last snapshot before mass changes), snapshots forgotten (written first, so a
// prune killed half-way is finished by the next one; never shown again; their rows stay as the
// anchors the surviving versions' intervals name), and the alert episodes already announced (an
// event fires once, not once per pass, across restarts too).
import type { Migration } from './types.js';

export const migration011: Migration = {
  version: 11,
  name: 'retention',
  sql: `
CREATE TABLE snapshot_holds (
  snapshot_id INTEGER PRIMARY KEY REFERENCES snapshot_runs (id),
  reason TEXT NOT NULL,
  held_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  released_at TEXT
);

CREATE TABLE snapshot_forgets (
  snapshot_id INTEGER PRIMARY KEY REFERENCES snapshot_runs (id),
  decided_at TEXT NOT NULL
);

CREATE TABLE alert_state (
  key TEXT PRIMARY KEY,          -- an episode: 'pass_failed', 'auth_failed', 'stale'
  state TEXT NOT NULL,           -- JSON: since, count, announced
  updated_at TEXT NOT NULL
);
`,
  // (verified_parts too: a copy cut back to N must not name later snapshots, and its next sync is
  // full; forgotten snapshots stay forgotten in a copy)
  exportCleanup: 'DELETE FROM snapshot_holds; DELETE FROM alert_state; DELETE FROM verified_parts;',
};

// Tripwire incidents (owned by src/tripwire/): each mass change a pass found, pinned — the module,
// the snapshot before (held) and the one that recorded the damage, who did it and when (the feed
// rows' time range), what tripped — so the undo can be one short command (`wbsync rollback
// --incident N`) that reverts exactly the damage and keeps every other write. Open until a restore
// or rollback of the module completes (the next pass marks it recovered).
import type { Migration } from './types.js';

export const migration016: Migration = {
  version: 16,
  name: 'incidents',
  sql: `
CREATE TABLE incidents (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  -- 'mass-change' (cells, records, notes of a live module), 'module-deleted', 'workspace-lost'
  kind TEXT NOT NULL,
  workspace_id TEXT NOT NULL,
  module_id TEXT,
  module_name TEXT NOT NULL DEFAULT '',
  snapshot_before INTEGER NOT NULL REFERENCES snapshot_runs (id),
  snapshot_damage INTEGER NOT NULL REFERENCES snapshot_runs (id),
  summary TEXT NOT NULL,
  what TEXT NOT NULL DEFAULT '[]',     -- JSON array of readable lines
  actors TEXT NOT NULL DEFAULT '[]',   -- JSON [{id, name, rows}]: the actors blamed
  columns TEXT NOT NULL DEFAULT '[]',  -- JSON array of column ids whose cells tripped it
  kinds TEXT NOT NULL DEFAULT '[]',    -- JSON array of rollback kinds the damage covers
  damage_from TEXT,                    -- the first and last feed row of the damage (ISO)
  damage_to TEXT,
  feed_rows INTEGER NOT NULL DEFAULT 0,
  undo TEXT NOT NULL,                  -- JSON argv of the undo command
  status TEXT NOT NULL CHECK (status IN ('open', 'recovered')),
  opened_at TEXT NOT NULL,
  recovered_at TEXT,
  recovered_by_run INTEGER
);
CREATE INDEX incidents_open ON incidents (status, module_id);
-- The tripwire runs after every pass: the cells a pass added and the feed rows it brought are read
-- by the snapshot that first holds them, not by a scan. Partial indexes (WHERE valid_from > 0) that
-- only a query naming that term can use: the reporting views' "valid_from <= latest" keeps the
-- indexes it was planned for (migration 012).
CREATE INDEX cell_versions_opened ON cell_versions (valid_from) WHERE valid_from > 0;
CREATE INDEX activity_versions_opened ON activity_versions (valid_from, module_id) WHERE valid_from > 0;
`,
  exportCleanup: 'DELETE FROM incidents;',
};

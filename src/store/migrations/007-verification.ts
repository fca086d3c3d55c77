// When each part of a workspace (the workspace's own lists, each module) was last read in full:
// by a full pass, or by the rolling re-verification of incremental passes. Written in the same
// transaction as the data read, so a verification time never claims data that was not stored.
import type { Migration } from './types.js';

export const migration007: Migration = {
  version: 7,
  name: 'verification',
  sql: `
CREATE TABLE verified_parts (
  workspace_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('workspace', 'module')),
  part_id TEXT NOT NULL,
  verified_at TEXT NOT NULL,
  snapshot_id INTEGER NOT NULL REFERENCES snapshot_runs (id),
  PRIMARY KEY (workspace_id, kind, part_id)
);
`,
};

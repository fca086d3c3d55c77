// Resolved relation/reference cells per module (GET /record-values/references/{module}), versioned
// like every entity, and the `resolved_references` view (not in the contract; a convenience).
import type { Migration } from './types.js';

export const migration006: Migration = {
  version: 6,
  name: 'references',
  sql: `
CREATE TABLE reference_versions (
  vid INTEGER PRIMARY KEY,
  module_id TEXT NOT NULL,
  record_id TEXT NOT NULL,
  column_id TEXT NOT NULL,
  items TEXT,
  display TEXT,
  raw TEXT NOT NULL,
  hash TEXT NOT NULL,
  valid_from INTEGER NOT NULL REFERENCES snapshot_runs (id),
  valid_to INTEGER REFERENCES snapshot_runs (id),
  CHECK (valid_to IS NULL OR valid_to > valid_from)
);
CREATE UNIQUE INDEX reference_versions_current ON reference_versions (module_id, record_id, column_id) WHERE valid_to IS NULL;
CREATE INDEX reference_versions_history ON reference_versions (module_id, record_id, column_id, valid_from);
CREATE INDEX reference_versions_valid_to ON reference_versions (valid_to);
CREATE VIEW resolved_references AS SELECT module_id, record_id, column_id, items, display, raw FROM reference_versions
  WHERE valid_from <= (SELECT MAX(id) FROM snapshot_runs WHERE status = 'complete')
    AND (valid_to IS NULL OR valid_to > (SELECT MAX(id) FROM snapshot_runs WHERE status = 'complete'));
`,
};

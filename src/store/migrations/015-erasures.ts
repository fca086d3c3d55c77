// The erasure ledger (owned by store/erasure/erasure-ledger.ts; written by erase.ts there): what was erased
// — a person, a record, a module — by id, when and why, never the erased content. erased_ids lists
// every entity id an erasure removed (a record's sub-records, amendments...) with the module and
// workspace it lived in, so restores can say what they skip and syncs can refuse to store it again.
// status 'running' while the history is being rewritten (a re-run finishes it); lifted_at set by
// `wbsync erase --lift ID`: the next sync stores the entity again.
import type { Migration } from './types.js';

export const migration015: Migration = {
  version: 15,
  name: 'erasures',
  sql: `
CREATE TABLE erasures (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL CHECK (kind IN ('user', 'record', 'module')),
  entity_id TEXT NOT NULL,
  reason TEXT,
  status TEXT NOT NULL CHECK (status IN ('running', 'complete')),
  started_at TEXT NOT NULL,
  finished_at TEXT,
  lifted_at TEXT
);
CREATE UNIQUE INDEX erasures_active ON erasures (kind, entity_id) WHERE lifted_at IS NULL;

CREATE TABLE erased_ids (
  erasure_id INTEGER NOT NULL REFERENCES erasures (id),
  kind TEXT NOT NULL,          -- record, amendment, module (a person's own id is the erasure's)
  entity_id TEXT NOT NULL,
  module_id TEXT,
  workspace_id TEXT,
  PRIMARY KEY (erasure_id, kind, entity_id)
);
CREATE INDEX erased_ids_entity ON erased_ids (entity_id);
CREATE INDEX erased_ids_module ON erased_ids (module_id);
`,
};

// The module's record versions by when they hold, with what the console's recover previews ask of
// them (store/read/module-window.ts, module-census.ts): which records a module had in a window of
// snapshots, which were top-level at one, which changed between two — all read from this index alone
// (module, valid_from range), never visiting the table; the table is read only for the records that
// changed.
import type { Migration } from './types.js';

export const migration026: Migration = {
  version: 26,
  name: 'module-record-spans',
  sql: `
CREATE INDEX record_versions_module_span ON record_versions (module_id, valid_from, valid_to, parent_record_id, collection_id, id);
`,
};

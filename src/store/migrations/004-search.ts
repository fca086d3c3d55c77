// Full-text search: the FTS5 table `search` over record names and amendment messages.
//   SELECT kind, entity_id, record_id, module_id, snippet(search, 4, '[', ']', '…', 10)
//   FROM search WHERE search MATCH 'invoice' ORDER BY rank;
// It holds the newest version of each live record/amendment (maintained by src/store/tables/fts.ts as
// versions are written and closed); join the `records`/`amendments` views for the reporting state.
import type { Migration } from './types.js';

export const migration004: Migration = {
  version: 4,
  name: 'search',
  sql: `
CREATE VIRTUAL TABLE search USING fts5(
  kind UNINDEXED,       -- 'record' | 'amendment'
  entity_id UNINDEXED,
  record_id UNINDEXED,  -- the record itself, or the amended record
  module_id UNINDEXED,
  text,
  tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO search (rowid, kind, entity_id, record_id, module_id, text)
  SELECT vid * 2, 'record', id, id, module_id, name FROM record_versions WHERE valid_to IS NULL;
INSERT INTO search (rowid, kind, entity_id, record_id, module_id, text)
  SELECT vid * 2 + 1, 'amendment', id, record_id, module_id, message FROM amendment_versions WHERE valid_to IS NULL;
`,
};

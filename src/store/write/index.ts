// The write path (one batch, one transaction: apply-batch → versioned-writer, gone-marks, cursors,
// snapshots, the search index; on a writer thread for a file database). Everything outside
// src/store/ writes through the Store port; this is the little the rest may use directly.
export { encodeRow, type EncodedRow } from './row-encoding.js';
export { SEARCH_TABLE, SearchIndex, isSearchable, searchRows, type SearchRow } from './fts.js';

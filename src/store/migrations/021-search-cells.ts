// Full-text search over what people typed in cells too: the `search` table is re-keyed (rowid =
// vid*4 + 0 record, 1 amendment, 2 cell; see src/store/tables/fts.ts) and rebuilt from the current
// versions, cells included. From here the writers keep cells in it as they keep records.
import { rebuildSearch } from '../tables/fts.js';
import type { Migration } from './types.js';

export const migration021: Migration = {
  version: 21,
  name: 'search-cells',
  sql: '',
  run: (db) => rebuildSearch(db),
};

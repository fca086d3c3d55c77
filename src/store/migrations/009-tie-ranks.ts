// Where collections and columns stood among siblings listed at the same position: the service
// orders ties by creation time, which it does not publish for them, so restore needs the listing.
import type { Migration } from './types.js';

export const migration009: Migration = {
  version: 9,
  name: 'tie-ranks',
  sql: `
ALTER TABLE collection_versions ADD COLUMN tie_rank INTEGER;
ALTER TABLE column_versions ADD COLUMN tie_rank INTEGER;
`,
};

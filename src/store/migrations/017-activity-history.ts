// History over the activity feed: "who changed this record?", "what did this person do on Monday?",
// "which records change most?". The activity view (003/012) had only an index by time, so a report
// by record or by person scanned every activity version (twice when it joined the feed to itself)
// and sorted in temporary B-trees. Two covering indexes, the view's validity test included
// (valid_from, valid_to), so a report that counts reads the index alone and one record's or one
// person's rows are a range seek. The view is unchanged (the contract).
import type { Migration } from './types.js';

export const migration017: Migration = {
  version: 17,
  name: 'activity-history',
  sql: `
CREATE INDEX activity_versions_record ON activity_versions (record_id, created_at, valid_from, valid_to);
CREATE INDEX activity_versions_user ON activity_versions (user_id, created_at, action, valid_from, valid_to);
`,
};

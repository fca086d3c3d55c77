// Sub-records the feed says were created that the store holds no version of: created and archived
// between two passes under a parent that was archived too (the deployed service lists no archived
// record, so no listing showed them). An incremental pass keeps re-listing the archived parents of
// their collection while the module changes, so that an un-archive — which the service does not
// log — is found as a full pass finds it. A partial index over creation rows keeps that look-up a
// seek per module, not a scan of the feed.
import type { Migration } from './types.js';

export const migration025: Migration = {
  version: 25,
  name: 'unplaced-sub-records',
  sql: `
CREATE INDEX activity_versions_record_created ON activity_versions (module_id, record_id, valid_from) WHERE action = 'record_created';
`,
};

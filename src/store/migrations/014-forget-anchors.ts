// Forgotten snapshots stay, hidden, as the anchors the surviving versions' intervals name (see
// src/store/retention/prune.ts): snapshot_forgets keeps them for good and says when the deletion of the
// versions only they saw finished (NULL: a prune killed half-way; the next one finishes it).
import type { Migration } from './types.js';

export const migration014: Migration = {
  version: 14,
  name: 'forget-anchors',
  sql: `ALTER TABLE snapshot_forgets ADD COLUMN finished_at TEXT;`,
};

// Workspace restores share the restore journal: restore_runs.kind gains 'workspace' (a CHECK
// widened in place: see widen-check.ts). (012 belongs to the reporting indexes.)
import type { Migration } from './types.js';
import { widenCheck } from './widen-check.js';

export const migration013: Migration = {
  version: 13,
  name: 'workspace-runs',
  sql: '',
  run(db) {
    widenCheck(db, 'restore_runs', "kind TEXT NOT NULL CHECK (kind IN ('module', 'records', 'rollback'))", "kind TEXT NOT NULL CHECK (kind IN ('module', 'records', 'rollback', 'workspace'))", 'migration 010');
  },
};

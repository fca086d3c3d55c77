// Rollback runs share the restore journal (ids, steps, refusals, paused automations): restore_runs.kind
// gains 'rollback' (a CHECK widened in place: see widen-check.ts).
import type { Migration } from './types.js';
import { widenCheck } from './widen-check.js';

export const migration010: Migration = {
  version: 10,
  name: 'rollback-runs',
  sql: '',
  run(db) {
    widenCheck(db, 'restore_runs', "kind TEXT NOT NULL CHECK (kind IN ('module', 'records'))", "kind TEXT NOT NULL CHECK (kind IN ('module', 'records', 'rollback'))", 'migration 005');
  },
};

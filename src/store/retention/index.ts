// Retention: the keep policy (restic's, pure), prune (forgets snapshots and deletes the versions no
// kept snapshot shows), the snapshots a tripwire holds, and what no prune may forget. Outside
// src/store/ imports them from here.
export * from './holds.js';
export * from './policy.js';
export * from './prune.js';

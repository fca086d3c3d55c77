// The recover page's dry-run, from the database alone: the restore and rollback planners fed with
// the snapshot to go back to and, standing in for the live service, the latest complete snapshot.
// What only the service can tell (is the module gone right now, who edited a field since the last
// pass — rollback's conflicts) is named as such; the command's own --dry-run reads it.
// For speed on big modules the planners are fed what they look at (store/read/module-window.ts): the
// module at the snapshot without the cells' raw bodies, and for a rollback only the records, cells
// and notes that differ between the two snapshots, what the planner rebuilds whole, and the records
// those name (the rest compare equal and plan nothing); and the cells of
// plain columns, one identical step each, are counted in SQL (store/read/module-census.ts) rather than
// planned one by one, as are the fields put back on plain records past the first page
// (store/read/record-census.ts), and a restore's plain records (store/read/restore-content.ts) — why
// those counts are the planner's is said in recover-restore.ts and
// recover-rollback.ts. A rollback's fields put back are listed up to a first page, with their total.

import { commandLine } from '../domain/shell-command.js';
import type { FieldChange, NotRestored, PlanSummary, RepointReport } from '../restore/index.js';
import type { Store } from '../store/port.js';
import { previewRestore } from './recover-restore.js';
import { previewRollback } from './recover-rollback.js';

/** Fields put back listed by a rollback preview (the page shows them; the total is counted). */
export const WRITES_LISTED = 200;

export type RecoverScope = 'module' | 'rollback';

export interface RecoverPreview {
  scope: RecoverScope;
  moduleId: string;
  moduleName: string;
  snapshot: number;
  /** The snapshot standing in for the live service. */
  latest: number;
  /** The latest complete snapshot no longer holds the module. */
  goneSinceBackup: boolean;
  /** The exact command to copy (without --dry-run) and its dry-run form. */
  command: string;
  dryRunCommand: string;
  /** Why this scope cannot be planned (e.g. rollback of a module that is gone). */
  refusal: string | null;
  counts: Record<string, number>;
  summary: PlanSummary | null;
  notRestored: NotRestored[];
  /** Rollback: the first WRITES_LISTED fields put back (latest backup → snapshot), and how many. */
  writes: FieldChange[];
  writeCount: number;
  newRecords: { id: string; name: string }[];
  /** Rollback: the columns and automations (this module's, the workspace's, other modules') naming
   * what it recreates, re-pointed at the copies (or declared in notRestored). */
  repointed: RepointReport;
}

export function previewRecover(store: Store, opts: { moduleId: string; snapshot: number; scope: RecoverScope; columnId?: string; attribution: string; listed?: number }): RecoverPreview {
  const { moduleId, snapshot, scope } = opts;
  const latest = store.latestCompleteSnapshot() ?? snapshot;
  const snapState = store.stateAt(snapshot)!;
  const latestState = store.stateAt(latest)!;
  // the whole module as the latest backup has it only for rollback; restore asks only "is it there"
  const stillThere = latestState.module(moduleId) !== null;
  const out: RecoverPreview = {
    scope,
    moduleId,
    moduleName: snapState.module(moduleId)!.name,
    snapshot,
    latest,
    goneSinceBackup: !stillThere,
    command: '',
    dryRunCommand: '',
    refusal: null,
    counts: {},
    summary: null,
    notRestored: [],
    writes: [],
    writeCount: 0,
    newRecords: [],
    repointed: { columns: [], automations: [] },
  };
  if (scope === 'module') {
    const asCopy = stillThere;
    out.command = commandLine(['wbsync', 'restore', 'module', moduleId, '--snapshot', snapshot, ...(asCopy ? ['--as-copy'] : [])]);
    out.dryRunCommand = `${out.command} --dry-run`;
    const r = previewRestore(store, { moduleId, snapshot, snapState, latestState, attribution: opts.attribution });
    out.counts = r.counts;
    out.summary = r.summary;
    out.notRestored = r.notRestored;
    return out;
  }
  out.command = commandLine(['wbsync', 'rollback', '--module', moduleId, '--to-snapshot', snapshot, ...(opts.columnId ? ['--column', opts.columnId] : [])]);
  out.dryRunCommand = `${out.command} --dry-run`;
  if (!stillThere) {
    out.refusal = `the latest backup (#${latest}) no longer holds this module: rollback works in place on a live module; restore it instead (scope "whole module")`;
    return out;
  }
  if (snapshot >= latest) {
    out.refusal = `snapshot #${snapshot} is the latest backup: there is nothing to roll back to it from the database's view; pick an older snapshot`;
    return out;
  }
  const r = previewRollback(store, { moduleId, snapshot, latest, snapState, latestState, columnId: opts.columnId, attribution: opts.attribution, listed: opts.listed ?? WRITES_LISTED });
  out.counts = r.counts;
  out.summary = r.summary;
  out.notRestored = r.notRestored;
  out.writes = r.writes;
  out.writeCount = r.writeCount;
  out.newRecords = r.newRecords;
  out.repointed = r.repointed;
  return out;
}

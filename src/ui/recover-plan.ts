// The recover page's dry-run, from the database alone: the restore and rollback planners fed with
// the snapshot to go back to and, standing in for the live service, the latest complete snapshot.
// What only the service can tell (is the module gone right now, who edited a field since the last
// pass — rollback's conflicts) is named as such; the command's own --dry-run reads it.
// For speed on big modules the planners are fed what they look at (store/module-window.ts): the
// module at the snapshot without the cells' raw bodies, and for a rollback only the cells that
// differ between the two snapshots (the rest compare equal and plan nothing).

import { commandLine } from '../domain/shell-command.js';
import type { Member } from '../domain/entities.js';
import { type FieldChange, type NotRestored, planRestore, planRollback, type PlanSummary, restoredIdMap, ROLLBACK_KINDS, summarisePlan, treeFromState } from '../restore/index.js';
import { readModuleContent, readModuleWindow, withContent } from '../store/read/index.js';
import type { Store } from '../store/port.js';

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
  /** Rollback: fields put back (latest backup → snapshot). */
  writes: FieldChange[];
  newRecords: { id: string; name: string }[];
}

const displayName = (m: Member): string => [m.firstName, m.lastName].filter(Boolean).join(' ') || m.email || m.userId;

export function previewRecover(store: Store, opts: { moduleId: string; snapshot: number; scope: RecoverScope; columnId?: string; attribution: string }): RecoverPreview {
  const { moduleId, snapshot, scope } = opts;
  const latest = store.latestCompleteSnapshot() ?? snapshot;
  const snapState = store.stateAt(snapshot)!;
  const latestState = store.stateAt(latest)!;
  // the whole module as the latest backup has it only for rollback; restore asks only "is it there"
  const stillThere = latestState.module(moduleId) !== null;
  const window = scope === 'rollback' && stillThere && snapshot < latest ? readModuleWindow(store.db, moduleId, snapshot, latest) : null;
  // the ledger: an erased record or person's note is listed as not restorable, as the command will
  const base = treeFromState(withContent(snapState, moduleId, window?.base ?? readModuleContent(store.db, moduleId, snapshot)), moduleId, store.db)!;
  const after = window ? treeFromState(withContent(latestState, moduleId, window.after), moduleId) : null;
  const ws = base.module.workspaceId;
  const out: RecoverPreview = {
    scope,
    moduleId,
    moduleName: base.module.name,
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
    newRecords: [],
  };
  if (scope === 'module') {
    const asCopy = stillThere;
    out.command = commandLine(['wbsync', 'restore', 'module', moduleId, '--snapshot', snapshot, ...(asCopy ? ['--as-copy'] : [])]);
    out.dryRunCommand = `${out.command} --dry-run`;
    const liveIds = new Set(latestState.modules(ws).map((m) => m.id));
    const plan = planRestore({
      tree: base,
      targetWorkspaceId: ws,
      liveModuleIds: liveIds,
      restoredIds: restoredIdMap(store.db, liveIds),
      moduleNames: new Map(snapState.modules(ws).map((m) => [m.id, m.name])),
      memberIds: new Set(latestState.members(ws).map((m) => m.userId)),
      userNames: new Map(snapState.members(ws).map((m) => [m.userId, displayName(m)])),
      attribution: opts.attribution,
    });
    out.counts = plan.counts;
    out.summary = summarisePlan(plan);
    out.notRestored = plan.notRestored;
    return out;
  }
  out.command = commandLine(['wbsync', 'rollback', '--module', moduleId, '--to-snapshot', snapshot, ...(opts.columnId ? ['--column', opts.columnId] : [])]);
  out.dryRunCommand = `${out.command} --dry-run`;
  if (!stillThere) {
    out.refusal = `the latest backup (#${latest}) no longer holds this module: rollback works in place on a live module; restore it instead (scope "whole module")`;
    return out;
  }
  if (after === null) {
    out.refusal = `snapshot #${snapshot} is the latest backup: there is nothing to roll back to it from the database's view; pick an older snapshot`;
    return out;
  }
  const plan = planRollback({
    base,
    after,
    // the latest backup stands in for the service (read once: the planner does not change its inputs)
    live: after,
    selection: { kinds: new Set(ROLLBACK_KINDS), kindsNamed: false, columns: opts.columnId ? new Set([opts.columnId]) : null, records: null, collections: null, touched: null },
    force: false,
    workspaceId: ws,
    attribution: opts.attribution,
    userNames: new Map(latestState.members(ws).map((m) => [m.userId, displayName(m)])),
    // recipes naming what the rollback would recreate are re-pointed (counted in the preview)
    recipes: [...after.automations, ...latestState.workspaceAutomations(ws)],
  });
  out.counts = plan.counts;
  out.summary = summarisePlan(plan.plan);
  out.notRestored = plan.plan.notRestored;
  out.writes = plan.writes;
  out.newRecords = plan.newRecords.map((r) => ({ id: r.id, name: r.name }));
  return out;
}

// `wbsync rollback`: put part of a live module back as it was at a snapshot, in place. Refusals first
// (reads only), then the three sides (snapshot, the state the damage left, live), the selection,
// the plan (plan.ts) and — unless a dry run — the same journaled applier as restore module,
// with the module's and the workspace's automations paused around it when asked.

import { shown } from '../../domain/display-text.js';
import type { Automation, BoardRecord, Cell, Module } from '../../domain/entities.js';
import { WbsyncError, isWbsyncError } from '../../domain/errors.js';
import type { StateReader } from '../../store/port.js';
import { applyPlan } from '../engine/apply.js';
import { journaledRun, type RunOutcome } from '../engine/journaled-run.js';
import { latestRun } from '../../store/ledgers/index.js';
import { pauseAutomationList } from '../engine/pause.js';
import type { Step } from '../engine/plan-steps.js';
import { summarisePlan } from '../engine/plan-steps.js';
import { chooseSnapshot, refuse, requireWritable, type RestoreDeps, type RunControls } from '../engine/preconditions.js';
import { planRollback, type FoundBy } from './plan.js';
import { acrossInvocations, readForeign, repointReport, unreadWarning, type ForeignObjects, type RepointReport } from '../engine/repoint-foreign.js';
import { feedVerdicts, mergeTouched, touchedByPin, type DamagePin } from './damage.js';
import { ROLLBACK_KINDS, columnIdsOf, touchedByFeed, type FieldChange, type RollbackKind, type RollbackSelection } from './selection.js';
import { treeFromLive, treeFromState, type LiveModuleReader, type ModuleTree } from '../engine/tree.js';
import { commandLine } from '../../domain/shell-command.js';
import { memberNames } from '../../domain/member-name.js';

/** The snapshot to go back to (exactly one): by id, or the newest complete one finished at or
 * before a time (ISO 8601). */
export type RollbackTo = { toSnapshot: number; toTime?: undefined } | { toTime: string; toSnapshot?: undefined };

/** Options checked by the caller (the CLI words their usage errors): one target, known kinds, a
 * window whose start is not after its end. */
export type RollbackOptions = RollbackScope & RollbackTo;

export interface RollbackScope extends RunControls {
  moduleId: string;
  /** Column ids or names (cells of those columns, and the columns). */
  columns?: string[];
  records?: string[];
  collections?: string[];
  kinds?: RollbackKind[];
  /** A user id, or 'automation': only what the feed shows that actor changed. */
  changedBy?: string;
  /** Only what the feed shows changed in this window; the damage is read from the first snapshot after it. */
  changedBetween?: [string, string];
  force?: boolean;
  pauseAutomations?: boolean;
  dryRun?: boolean;
  /** Pinned to a tripwire incident (--incident): the damage is these actors' rows in this time
   * range, recorded by `afterSnapshot`; every other write is a conflict. */
  pin?: DamagePin & { afterSnapshot: number };
}

export type { RepointReport } from '../engine/repoint-foreign.js';

export interface RollbackResult extends RunOutcome {
  moduleId: string;
  moduleName: string;
  /** The snapshot the module goes back to, and how it was picked. */
  snapshot: number;
  snapshotTakenAt: string | null;
  chosenBy: 'to-snapshot' | 'to';
  /** The snapshot read as "what the damage left". */
  afterSnapshot: number;
  counts: Record<string, number>;
  /** Fields put back (dry run: would be), live → snapshot value. */
  writes: FieldChange[];
  /** Fields edited after the damage: kept unless --force (then written too). */
  conflicts: FieldChange[];
  newRecords: { id: string; name: string; archived: boolean }[];
  /** Objects found by a lookup after an unknown outcome (a resumed run) instead of made again. */
  foundByLookup: number;
  /** Active automations the planned writes could set off (when not paused). */
  wouldTrigger: { id: string; name: string; scope: string; trigger: string }[];
  /** Things to know before trusting the result (e.g. the database has not seen the latest changes). */
  warnings: string[];
  /** --incident: the incident and what its damage is pinned to (readable). */
  incident?: number;
  pinnedTo?: string;
  /** What named objects the run recreated, pointed at the copies: reference columns (re-pointed in
   * place, or recreated where the service keeps settings create-only; 'pending' in a dry run) and
   * automations, the module's, the workspace's and the other modules' (those carry `owner`). */
  repointed: RepointReport;
}

/** The snapshot that shows the damage: the first complete one after the window, else the latest. */
function pickAfter(deps: RestoreDeps, base: number, moduleId: string, window?: [string, string]): number {
  const holding = deps.store.snapshotsHolding('module', moduleId).filter((id) => id > base);
  const latest = holding[holding.length - 1] ?? base;
  if (!window) return latest;
  const end = Date.parse(window[1]);
  const first = deps.store
    .listSnapshots()
    .filter((s) => s.status === 'complete' && holding.includes(s.id) && Date.parse(s.startedAt) >= end)
    .sort((a, b) => a.id - b.id)[0];
  return first?.id ?? latest;
}

/**
 * Records of the snapshot that no listing shows now but that still answer by id: a delete on the
 * deployed service archives a row and its sub-records, and deleting a collection leaves its records
 * stranded (deletes do not cascade). Each that answers joins the live tree with its cells and amendments
 * (as the service has them) and the fields it had at the snapshot — nobody can have edited it since,
 * nothing lists it — so the plan brings it back in place. Sub-records are asked for only under a
 * parent that is live or found (the published interface deletes a parent for good and archives its
 * sub-records, orphans the plan leaves alone and makes anew under the parent's copy).
 */
async function findUnlisted(client: RestoreDeps['client'], base: ModuleTree, live: ModuleTree, after: ModuleTree): Promise<Map<string, FoundBy>> {
  const liveCollections = new Set(live.collections.map((c) => c.id));
  const liveRecords = new Set(live.records.map((r) => r.id));
  const found = new Map<string, FoundBy>();
  const probe = async (r: BoardRecord, how: FoundBy): Promise<void> => {
    let cells: Cell[];
    try {
      cells = await client.listValues(r.id);
    } catch (e) {
      if (isWbsyncError(e) && e.code === 'not_found') return;
      throw e;
    }
    const amendments = await client.listAmendments(r.id);
    live.records.push(r);
    live.cells.push(...cells);
    live.amendments.push(...amendments);
    // what the damage left of it is what is there now: nothing can reach it to edit it since
    // (a pass after the delete no longer holds it)
    after.cells = [...after.cells.filter((c) => c.recordId !== r.id), ...cells];
    after.amendments = [...after.amendments.filter((a) => a.recordId !== r.id), ...amendments];
    found.set(r.id, how);
  };
  const tops = base.records.filter((r) => r.parentRecordId === null && !liveRecords.has(r.id));
  await Promise.all(tops.map((r) => probe(r, r.collectionId !== null && !liveCollections.has(r.collectionId) ? 'stranded' : 'archived')));
  const subs = base.records.filter((r) => r.parentRecordId !== null && !liveRecords.has(r.id) && (liveRecords.has(r.parentRecordId) || found.has(r.parentRecordId)));
  await Promise.all(subs.map((r) => probe(r, found.get(r.parentRecordId!) === 'stranded' ? 'stranded' : 'archived')));
  return found;
}

/**
 * What the feed says about later writes (damage.ts): pinned to an incident, the selection
 * becomes the damage's cells (and, beyond cells, the blamed actors' other rows in its time range);
 * pinned or not, a cell written after or beside the damage is a conflict. Returns those cells.
 */
function pinSelection(selection: RollbackSelection, state: StateReader, ws: string, opts: RollbackOptions, since: string, names: (who: string) => string): ReadonlyMap<string, string> {
  const pin = opts.pin && opts.pin.actors.length && opts.pin.from ? opts.pin : null;
  const verdicts = feedVerdicts(state.moduleActivity(ws, opts.moduleId, since), opts.moduleId, since, pin, names);
  if (pin) {
    const cells = touchedByPin(verdicts);
    const onlyCells = selection.kinds.size === 1 && selection.kinds.has('cells');
    const window: [string, string] = [pin.from, pin.to];
    const others = onlyCells ? [] : pin.actors.map((a) => touchedByFeed(state, ws, opts.moduleId, a.startsWith('automation:') ? 'automation' : a, window));
    selection.touched = mergeTouched([cells, ...others]);
  }
  return verdicts.later;
}

function pinnedText(pin: NonNullable<RollbackOptions['pin']>, names: (who: string) => string): string {
  if (!pin.actors.length || !pin.from) return `what snapshot ${pin.afterSnapshot} recorded (the feed names nobody)`;
  return `${pin.actors.map(names).join(', ')}'s writes from ${pin.from} to ${pin.to}, recorded by snapshot ${pin.afterSnapshot}`;
}

/** Trigger types the plan's writes may fire, for the dry run's warning. */
function triggersOf(steps: Step[]): Set<string> {
  const out = new Set<string>();
  for (const s of steps) {
    if (s.op === 'setCell' || s.op === 'createCell' || s.op === 'clearCell') ['column_changed', 'column_changed_to', 'subrecord_column_changed', 'subrecord_column_changed_to'].forEach((t) => out.add(t));
    if (s.op === 'updateRecord') {
      if (s.body.name !== undefined) out.add('record_renamed');
      if (s.collection !== undefined) out.add('record_moved');
      if (s.body.isCompleted !== undefined) ['record_completed', 'record_uncompleted', 'subrecord_completed', 'all_subrecords_completed'].forEach((t) => out.add(t));
      if (s.body.isArchived !== undefined) out.add('record_archived');
    }
    if (s.op === 'archiveRecord') out.add('record_archived');
    if (s.op === 'createAmendment') out.add('amendment_posted');
  }
  return out;
}

/** The three sides a rollback reads (reads only): the snapshot to go back to, what the damage left
 * (the snapshot after), and the module live now with the records it no longer lists that still answer. */
interface Sides {
  chosen: { id: number; chosenBy: 'to' | 'to-snapshot' };
  base: ModuleTree;
  ws: string;
  liveModule: Module;
  afterId: number;
  after: ModuleTree;
  latestState: StateReader;
  live: ModuleTree;
  liveWorkspaceAutomations: Automation[];
  found: Map<string, FoundBy>;
  /** The other modules' columns and automations, read when the snapshot holds structure that is gone. */
  foreign?: ForeignObjects;
}

export async function rollback(deps: RestoreDeps & { readLive: LiveModuleReader }, opts: RollbackOptions): Promise<RollbackResult> {
  const { client, store } = deps;
  const started = Date.now();
  const stats0 = client.stats().requests;
  const sides = await readSides(deps, opts);
  const { chosen, base, ws, liveModule, afterId, after, latestState, live, liveWorkspaceAutomations, found, foreign } = sides;
  const selection = selectionOf(opts, sides);
  const userNames = memberNames(latestState.members(ws));
  selection.laterEdits = pinSelection(selection, latestState, ws, opts, store.getSnapshot(chosen.id)?.startedAt ?? '', (who) => userNames.get(who) ?? who);
  const planned = planRollback({ base, after, live, selection, force: opts.force === true, workspaceId: ws, attribution: opts.attribution, userNames, found, automations: [...live.automations, ...liveWorkspaceAutomations], ...(foreign ? { foreign } : {}) });
  const automations: Automation[] = [...live.automations, ...liveWorkspaceAutomations].filter((a) => a.isActive);
  const baseResult = {
    warnings: [...staleWarnings(deps, opts, liveModule, afterId), ...unreadWarning(foreign)],
    ...(opts.pin ? { incident: opts.pin.incident, pinnedTo: pinnedText(opts.pin, (who) => userNames.get(who) ?? who) } : {}),
    moduleId: opts.moduleId,
    moduleName: liveModule.name,
    snapshot: chosen.id,
    snapshotTakenAt: store.listSnapshots().find((s) => s.id === chosen.id)?.finishedAt ?? null,
    chosenBy: chosen.chosenBy,
    afterSnapshot: afterId,
    counts: planned.counts,
    writes: planned.writes,
    conflicts: planned.conflicts,
    newRecords: planned.newRecords,
    wouldTrigger: opts.pauseAutomations ? [] : wouldTrigger(planned.plan.phases.flatMap((p) => p.steps), automations),
    repointed: repointReport(planned.repoint, null),
  };
  if (opts.dryRun) {
    return { ...baseResult, dryRun: true, runId: null, resumed: false, notRestored: planned.plan.notRestored, refused: 0, foundByLookup: 0, pausedAutomations: [], plan: summarisePlan(planned.plan), requests: client.stats().requests - stats0, durationMs: Date.now() - started };
  }

  const runKey = JSON.stringify(['rollback', chosen.id, opts.moduleId, [...selection.kinds].sort(), [...(selection.columns ?? [])].sort(), [...(selection.records ?? [])].sort(), [...(selection.collections ?? [])].sort(), opts.changedBy ?? null, opts.changedBetween ?? null, opts.force === true, ...(opts.pin ? [{ incident: opts.pin.incident }] : [])]);
  const previous = latestRun(store.db, runKey);
  const repoint = acrossInvocations(planned.repoint, previous);
  return journaledRun(
    deps,
    { previous, settleMs: opts.settleMs, since: { at: started, requests: stats0 }, start: { kind: 'rollback', runKey, snapshotId: chosen.id, sourceIds: [opts.moduleId], targetWorkspaceId: ws, options: { force: opts.force === true, pauseAutomations: opts.pauseAutomations === true, repoint } } },
    async ({ journal, run, resumed }) => {
      // Live objects keep their ids: each one the plan names maps onto itself.
      journal.sameAll([[opts.moduleId, 'module'], ...planned.liveIds]);
      const paused = opts.pauseAutomations ? await pauseAutomationList(client, journal, automations) : [];
      const res = await applyPlan(planned.plan, { client, journal, parallel: opts.parallel, signal: opts.signal, onProgress: opts.onProgress });
      const result: RollbackResult = {
        ...baseResult,
        dryRun: false,
        runId: run.id,
        resumed,
        notRestored: [...planned.plan.notRestored, ...res.refused],
        refused: res.refused.length,
        foundByLookup: res.foundByLookup,
        pausedAutomations: paused,
        repointed: repointReport(repoint, { newId: (id) => journal.newId(id), isRefused: (id) => journal.isRefused(id) }),
        requests: 0,
        durationMs: 0,
      };
      return result;
    },
    (result) => {
      deps.logger?.info({ moduleId: opts.moduleId, snapshot: chosen.id, writes: result.writes.length, conflicts: result.conflicts.length, requests: result.requests }, 'module rolled back');
      return { counts: result.counts, conflicts: result.conflicts.length, notRestored: result.notRestored, refused: result.refused, requests: result.requests };
    },
  );
}

/** The snapshot to go back to, the module live (refused when gone: that is a restore), the snapshot
 * that shows the damage, and the module as it is now, side by side with who may write. */
async function readSides(deps: RestoreDeps & { readLive: LiveModuleReader }, opts: RollbackOptions): Promise<Sides> {
  const { client, store } = deps;
  const chosen = {
    id: chooseSnapshot(store, 'module', opts.moduleId, opts.toTime !== undefined ? { atOrBefore: opts.toTime } : opts.toSnapshot),
    chosenBy: opts.toTime !== undefined ? ('to' as const) : ('to-snapshot' as const),
  };
  const baseState = store.stateAt(chosen.id)!;
  const base = treeFromState(baseState, opts.moduleId, store.db)!;
  const ws = base.module.workspaceId;
  const modules = await client.listModules(ws);
  const liveModule = modules.find((m) => m.id === opts.moduleId);
  if (!liveModule) throw refuse(`module ${opts.moduleId} (${shown(base.module.name)}) is gone`, `rollback works in place on a live module: bring it back with ${commandLine(['wbsync', 'restore', 'module', opts.moduleId])}`);
  const afterId = opts.pin ? opts.pin.afterSnapshot : pickAfter(deps, chosen.id, opts.moduleId, opts.changedBetween);
  const latestState = store.stateAt()!;
  const after = { ...(treeFromState(store.stateAt(afterId)!, opts.moduleId) ?? base) };
  // reads only, side by side: who may write, the module as it is now, the workspace's automations
  const [, live, liveWorkspaceAutomations] = await Promise.all([requireWritable(client, ws), treeFromLive(deps.readLive, client, liveModule, latestState, null), client.listWorkspaceAutomations(ws)]);
  const found = await findUnlisted(client, base, live, after);
  // the other modules may name a collection or column of the snapshot that is gone (recreated, or
  // declared when left out): read theirs only then
  const liveStructure = new Set([...live.collections, ...live.columns].map((x) => x.id));
  const gone = [...base.collections, ...base.columns].some((x) => !liveStructure.has(x.id));
  const foreign = gone ? await readForeign(client, modules, opts.moduleId) : undefined;
  return { chosen, base, ws, liveModule, afterId, after, latestState, live, liveWorkspaceAutomations, found, ...(foreign ? { foreign } : {}) };
}

/** The parts to put back: the kinds, columns (ids or names), records and collections asked for, and
 * what the feed shows --changed-by or --changed-between touched. */
function selectionOf(opts: RollbackOptions, { base, live, latestState, ws }: Sides): RollbackSelection {
  return {
    kinds: new Set(opts.kinds?.length ? opts.kinds : ROLLBACK_KINDS),
    kindsNamed: !!opts.kinds?.length,
    columns: columnIdsOf(opts.columns, [...base.columns, ...live.columns], base.module.name),
    records: opts.records?.length ? new Set(opts.records) : null,
    collections: opts.collections?.length ? new Set(opts.collections) : null,
    touched: opts.changedBy || opts.changedBetween ? touchedByFeed(latestState, ws, opts.moduleId, opts.changedBy, opts.changedBetween) : null,
  };
}

/** The module changed after the latest snapshot: the database has not seen those changes. */
function staleWarnings(deps: RestoreDeps, opts: RollbackOptions, liveModule: Module, afterId: number): string[] {
  const warnings: string[] = [];
  const afterInfo = deps.store.listSnapshots().find((s) => s.id === afterId);
  if (afterInfo && liveModule.updatedAt && Date.parse(liveModule.updatedAt) > Date.parse(afterInfo.startedAt) && !opts.changedBetween) {
    warnings.push(`module ${liveModule.name} changed after snapshot ${afterId} (the latest): changes the database has not seen count as edits made after the damage (conflicts) — run 'wbsync sync' first if the damage is that recent`);
  }
  return warnings;
}

/** Active automations the plan's writes could set off. */
function wouldTrigger(steps: Step[], automations: Automation[]): RollbackResult['wouldTrigger'] {
  const fired = triggersOf(steps);
  return automations.filter((a) => fired.has(String(a.trigger['type']))).map((a) => ({ id: a.id, name: a.name, scope: a.scope, trigger: String(a.trigger['type']) }));
}

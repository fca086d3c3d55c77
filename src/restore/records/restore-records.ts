// `restore records ID…`: records deleted or archived since a snapshot come back into their live
// module. The deployed service archives on delete, so a record that still answers by id (its
// values read fine) is un-archived in place, keeping its id, cells and amendments; one the service
// no longer holds is recreated in its collection (or --collection) with sub-records, cells and
// amendment threads. Journaled and resumable like a module restore.

import { shown } from '../../domain/display-text.js';
import type { ServiceClient } from '../../api/port.js';
import type { BoardRecord, Column, Module } from '../../domain/entities.js';
import { isWbsyncError } from '../../domain/errors.js';
import { erasedRecords } from '../../store/erasure/index.js';
import type { StateReader, Store } from '../../store/port.js';
import { applyPlan } from '../engine/apply.js';
import { RunJournal, latestRun, startRun } from '../../store/ledgers/index.js';
import { planContent } from '../module/plan-content.js';
import { targetModules } from '../engine/remap.js';
import { summarisePlan, type NotRestored, type Phase, type PlanSummary, type RestorePlan } from '../engine/plan-steps.js';
import { chooseSnapshot, refuse } from '../engine/preconditions.js';
import { erasureView, withoutErasedAuthors } from '../engine/tree.js';
import { commandLine } from '../../domain/shell-command.js';

export interface RestoreRecordsOptions {
  recordIds: string[];
  snapshotId?: number;
  /** Recreate into this collection (default: the record's own). */
  collectionId?: string;
  dryRun?: boolean;
  attribution: string;
  parallel?: number;
}

export interface RecordOutcome {
  id: string;
  name: string;
  action: 'unarchived' | 'recreated' | 'already live';
  /** The record's id now (the same when un-archived). */
  newId: string | null;
}

export interface RestoreRecordsResult {
  records: RecordOutcome[];
  counts: Record<string, number>;
  notRestored: NotRestored[];
  /** Writes the service refused (listed in notRestored; the CLI exits 5). */
  refused: number;
  dryRun: boolean;
  runId: number | null;
  plan?: PlanSummary;
  requests: number;
}

async function answers(client: ServiceClient, recordId: string): Promise<boolean> {
  try {
    await client.listValues(recordId);
    return true;
  } catch (e) {
    if (isWbsyncError(e) && e.code === 'not_found') return false;
    throw e;
  }
}

/** The records asked for, each as its latest snapshot holding it (or the one asked for) has it. */
interface Chosen {
  ids: string[];
  /** The oldest of the records' snapshots: the run is keyed by it. */
  snapshot: number;
  recs: { rec: BoardRecord; state: StateReader }[];
  /** Those the erasure ledger took: in no snapshot, listed as not restored. */
  skipped: NotRestored[];
  moduleId: string;
  workspaceId: string;
}

/** The live module the records go back into. */
interface Live {
  modules: Module[];
  collections: Set<string>;
  columns: Column[];
}

/** What becomes of each record: already live, un-archived in place, or recreated. */
interface Sorted {
  outcomes: RecordOutcome[];
  recreate: { rec: BoardRecord; state: StateReader }[];
  unarchive: string[];
}

export async function restoreRecords(deps: { client: ServiceClient; store: Store }, opts: RestoreRecordsOptions): Promise<RestoreRecordsResult> {
  const { client, store } = deps;
  const stats0 = client.stats().requests;
  const chosen = chooseRecords(store, opts);
  const live = await readLiveModule(client, chosen, opts);
  const sorted = await sortRecords(client, chosen, live, opts);
  const plan = planRecords(store, chosen, live, sorted, opts);
  const { counts, notRestored } = plan;
  const base = { counts, notRestored, dryRun: opts.dryRun === true };
  if (opts.dryRun) return { ...base, refused: 0, records: sorted.outcomes, runId: null, plan: summarisePlan(plan), requests: client.stats().requests - stats0 };

  const { run, journal } = openJournal(store, chosen, live, sorted.unarchive, opts);
  let refused: NotRestored[];
  try {
    refused = (await applyPlan(plan, { client, journal, parallel: opts.parallel })).refused;
  } catch (e) {
    journal.finish('failed', { error: e instanceof Error ? e.message : String(e) });
    throw e;
  }
  const outcomes = sorted.outcomes;
  for (const o of outcomes) if (o.action === 'recreated') o.newId = journal.newId(o.id) ?? null;
  const requests = client.stats().requests - stats0;
  const all = [...notRestored, ...refused];
  journal.finish('complete', { counts, notRestored: all, refused: refused.length, records: outcomes, requests });
  return { ...base, notRestored: all, refused: refused.length, records: outcomes, runId: run.id, requests };
}

/** The records to restore, the erased ones set aside; all of one module. */
function chooseRecords(store: Store, opts: RestoreRecordsOptions): Chosen {
  // what the erasure ledger took is in no snapshot: listed as such, the rest restored
  const erased = new Map(erasedRecords(store.db).map((x) => [x.id, x]));
  const skipped: NotRestored[] = opts.recordIds.filter((id) => erased.has(id)).map((id) => ({ entity: 'record', id, label: '[erased]', reason: `erased on ${erased.get(id)!.erasedAt} (by ${erased.get(id)!.erasure}): not in any snapshot, not restored` }));
  const ids = [...new Set(opts.recordIds)].filter((id) => !erased.has(id));
  if (ids.length === 0) throw refuse(`record(s) ${opts.recordIds.join(', ')} were erased (wbsync erase): nothing to restore`, 'the erasure ledger lists them: wbsync erase --lift ID lets a later sync store them again');
  const snapshots = ids.map((id) => chooseSnapshot(store, 'record', id, opts.snapshotId));
  // Each record is read from its own latest snapshot holding it (or the one asked for); the run is
  // keyed by the oldest of them.
  const snapshot = Math.min(...snapshots);
  const recs = ids.map((id, i) => ({ rec: store.stateAt(snapshots[i])!.record(id)!, state: store.stateAt(snapshots[i])! }));
  const moduleId = recs[0].rec.moduleId;
  const workspaceId = recs[0].rec.workspaceId;
  if (recs.some((r) => r.rec.moduleId !== moduleId)) throw refuse('the records belong to different modules', 'restore the records of one module at a time');
  return { ids, snapshot, recs, skipped, moduleId, workspaceId };
}

/** The module's live collections and columns; refused when the module or --collection is gone. */
async function readLiveModule(client: ServiceClient, { moduleId, workspaceId }: Chosen, opts: RestoreRecordsOptions): Promise<Live> {
  const modules = await client.listModules(workspaceId);
  if (!modules.some((m) => m.id === moduleId)) {
    throw refuse(`module ${moduleId} of these records is gone`, `restore the module first: ${commandLine(['wbsync', 'restore', 'module', moduleId])}`);
  }
  const collections = new Set((await client.listCollections(moduleId)).map((c) => c.id));
  if (opts.collectionId && !collections.has(opts.collectionId)) throw refuse(`collection ${opts.collectionId} is not a live collection of module ${moduleId}`);
  const columns = [...(await client.listColumns(moduleId, 'record')), ...(await client.listColumns(moduleId, 'subrecord'))];
  return { modules, collections, columns };
}

/** Asks the service about each record: listed (already live), answering by id (archived: un-archived
 * with its sub-records live at the snapshot) or gone (recreated, when its collection is live). */
async function sortRecords(client: ServiceClient, { recs, moduleId }: Chosen, live: Live, opts: RestoreRecordsOptions): Promise<Sorted> {
  const sorted: Sorted = { outcomes: [], recreate: [], unarchive: [] };
  const { outcomes, recreate, unarchive } = sorted;
  for (const { rec, state } of recs) {
    if (await answers(client, rec.id)) {
      const listed = rec.parentRecordId
        ? await client.listSubRecords(rec.parentRecordId).catch(() => [] as BoardRecord[])
        : rec.collectionId && live.collections.has(rec.collectionId)
          ? await client.listRecords(rec.collectionId)
          : [];
      if (listed.some((r) => r.id === rec.id)) {
        outcomes.push({ id: rec.id, name: rec.name, action: 'already live', newId: rec.id });
        continue;
      }
      unarchive.push(rec.id);
      // The service archived its sub-records with it: bring back those live at the snapshot.
      for (const s of state.records(moduleId)) if (s.parentRecordId === rec.id && !s.isArchived && (await answers(client, s.id))) unarchive.push(s.id);
      outcomes.push({ id: rec.id, name: rec.name, action: 'unarchived', newId: rec.id });
    } else {
      if (rec.parentRecordId) throw refuse(`sub-record ${rec.id} is gone with no way back alone`, `restore its parent record ${rec.parentRecordId}`);
      const collection = opts.collectionId ?? rec.collectionId;
      if (!collection || !live.collections.has(collection)) throw refuse(`the collection of record ${rec.id} (${shown(rec.name)}) is gone`, 'name a live one with --collection ID');
      recreate.push({ rec, state });
      outcomes.push({ id: rec.id, name: rec.name, action: 'recreated', newId: null });
    }
  }
  return sorted;
}

/** The un-archive phase, then each recreated record's content (sub-records, cells, threads). */
function planRecords(store: Store, { moduleId, workspaceId, skipped }: Chosen, live: Live, { recreate, unarchive }: Sorted, opts: RestoreRecordsOptions): RestorePlan {
  const phases: Phase[] = [];
  if (unarchive.length) phases.push({ name: 'un-archive', steps: unarchive.map((id) => ({ op: 'unarchiveRecord', key: `unarchive:${id}`, target: id })) });
  const counts: Record<string, number> = { unarchived: unarchive.length };
  const notRestored: NotRestored[] = [...skipped];
  const ledger = erasureView(store.db, [moduleId]);
  const liveModuleIds = new Set(live.modules.map((m) => m.id));
  for (const { rec, state } of recreate) {
    const subs = state.records(moduleId).filter((r) => r.parentRecordId === rec.id);
    const records = [{ ...rec, isArchived: false }, ...subs];
    const recordIds = new Set(records.map((r) => r.id));
    // an erased person's amendments are not posted again (their replies are)
    const authored = withoutErasedAuthors(state.amendments(moduleId).filter((a) => recordIds.has(a.recordId)), ledger.users, ledger.erasedAt);
    notRestored.push(...authored.skipped);
    const content = planContent({
      records,
      cells: state.cells(moduleId).filter((c) => recordIds.has(c.recordId)),
      amendments: authored.kept,
      columns: live.columns,
      collectionOf: () => opts.collectionId ?? rec.collectionId,
      collectionExists: (id) => live.collections.has(id),
      moduleId,
      workspaceId,
      internal: recordIds,
      ext: (v) => v,
      foreignModules: (v) => targetModules(v).filter((m) => !liveModuleIds.has(m)),
      moduleName: (id) => id,
      attribution: opts.attribution,
      pruneSeeded: false,
    });
    for (const p of content.phases) phases.push({ name: `${rec.name}: ${p.name}`, steps: p.steps });
    for (const [k, n] of Object.entries(content.counts)) counts[k] = (counts[k] ?? 0) + n;
    notRestored.push(...content.notRestored);
  }
  return { moduleId, moduleName: moduleId, targetWorkspaceId: workspaceId, phases, counts, notRestored };
}

/** The run's journal, reopened when an earlier one did not complete; the live module, its
 * collections and columns and the records un-archived keep their ids: they map onto themselves. */
function openJournal(store: Store, { snapshot, ids, moduleId, workspaceId }: Chosen, live: Live, unarchive: string[], opts: RestoreRecordsOptions): { run: { id: number }; journal: RunJournal } {
  const runKey = JSON.stringify(['records', snapshot, [...ids].sort(), opts.collectionId ?? null]);
  const previous = latestRun(store.db, runKey);
  const resumed = previous !== null && previous.status !== 'complete';
  const run = resumed ? previous : startRun(store.db, { kind: 'records', runKey, snapshotId: snapshot, sourceIds: ids, targetWorkspaceId: workspaceId, options: { collectionId: opts.collectionId ?? null } }, new Date().toISOString());
  const journal = new RunJournal(store.db, run);
  if (resumed) journal.reopen();
  if (journal.newId(moduleId) === undefined) journal.same('module', moduleId);
  for (const c of live.collections) if (journal.newId(c) === undefined) journal.same('collection', c);
  for (const c of live.columns) if (journal.newId(c.id) === undefined) journal.same('column', c.id);
  for (const id of unarchive) if (journal.newId(id) === undefined) journal.same('record', id);
  return { run, journal };
}

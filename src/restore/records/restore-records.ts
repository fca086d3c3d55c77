// `restore records ID…`: records deleted or archived since a snapshot come back into their live
// module. The deployed service archives on delete, so a record that still answers by id (its
// values read fine) is un-archived in place, keeping its id, cells and amendments; one the service
// no longer holds is recreated in its collection (or --collection) with sub-records, cells and
// amendment threads. Journaled and resumable like a module restore.

import type { ServiceClient } from '../../api/port.js';
import type { BoardRecord } from '../../domain/entities.js';
import { isWbsyncError } from '../../domain/errors.js';
import { erasedRecords } from '../../store/erasure/index.js';
import type { Store } from '../../store/port.js';
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

export async function restoreRecords(deps: { client: ServiceClient; store: Store }, opts: RestoreRecordsOptions): Promise<RestoreRecordsResult> {
  const { client, store } = deps;
  const stats0 = client.stats().requests;
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
  const liveModules = await client.listModules(workspaceId);
  if (!liveModules.some((m) => m.id === moduleId)) {
    throw refuse(`module ${moduleId} of these records is gone`, `restore the module first: ${commandLine(['wbsync', 'restore', 'module', moduleId])}`);
  }
  const liveCollections = new Set((await client.listCollections(moduleId)).map((c) => c.id));
  if (opts.collectionId && !liveCollections.has(opts.collectionId)) throw refuse(`collection ${opts.collectionId} is not a live collection of module ${moduleId}`);
  const liveColumns = [...(await client.listColumns(moduleId, 'record')), ...(await client.listColumns(moduleId, 'subrecord'))];

  const outcomes: RecordOutcome[] = [];
  const recreate: { rec: BoardRecord; state: (typeof recs)[number]['state'] }[] = [];
  const unarchive: string[] = [];
  for (const { rec, state } of recs) {
    if (await answers(client, rec.id)) {
      const listed = rec.parentRecordId
        ? await client.listSubRecords(rec.parentRecordId).catch(() => [] as BoardRecord[])
        : rec.collectionId && liveCollections.has(rec.collectionId)
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
      if (!collection || !liveCollections.has(collection)) throw refuse(`the collection of record ${rec.id} (${rec.name}) is gone`, 'name a live one with --collection ID');
      recreate.push({ rec, state });
      outcomes.push({ id: rec.id, name: rec.name, action: 'recreated', newId: null });
    }
  }

  const phases: Phase[] = [];
  if (unarchive.length) phases.push({ name: 'un-archive', steps: unarchive.map((id) => ({ op: 'unarchiveRecord', key: `unarchive:${id}`, target: id })) });
  const counts: Record<string, number> = { unarchived: unarchive.length };
  const notRestored: NotRestored[] = [...skipped];
  const ledger = erasureView(store.db, [moduleId]);
  const liveModuleIds = new Set(liveModules.map((m) => m.id));
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
      columns: liveColumns,
      collectionOf: () => opts.collectionId ?? rec.collectionId,
      collectionExists: (id) => liveCollections.has(id),
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
  const plan: RestorePlan = { moduleId, moduleName: moduleId, targetWorkspaceId: workspaceId, phases, counts, notRestored };
  const base = { counts, notRestored, dryRun: opts.dryRun === true };
  if (opts.dryRun) return { ...base, refused: 0, records: outcomes, runId: null, plan: summarisePlan(plan), requests: client.stats().requests - stats0 };

  const runKey = JSON.stringify(['records', snapshot, [...ids].sort(), opts.collectionId ?? null]);
  const previous = latestRun(store.db, runKey);
  const resumed = previous !== null && previous.status !== 'complete';
  const run = resumed ? previous : startRun(store.db, { kind: 'records', runKey, snapshotId: snapshot, sourceIds: ids, targetWorkspaceId: workspaceId, options: { collectionId: opts.collectionId ?? null } }, new Date().toISOString());
  const journal = new RunJournal(store.db, run);
  if (resumed) journal.reopen();
  // The live module, its collections and columns keep their ids: they map onto themselves.
  if (journal.newId(moduleId) === undefined) journal.same('module', moduleId);
  for (const c of liveCollections) if (journal.newId(c) === undefined) journal.same('collection', c);
  for (const c of liveColumns) if (journal.newId(c.id) === undefined) journal.same('column', c.id);
  for (const id of unarchive) if (journal.newId(id) === undefined) journal.same('record', id);
  let refused: NotRestored[];
  try {
    refused = (await applyPlan(plan, { client, journal, parallel: opts.parallel })).refused;
  } catch (e) {
    journal.finish('failed', { error: e instanceof Error ? e.message : String(e) });
    throw e;
  }
  for (const o of outcomes) if (o.action === 'recreated') o.newId = journal.newId(o.id) ?? null;
  const requests = client.stats().requests - stats0;
  const all = [...notRestored, ...refused];
  journal.finish('complete', { counts, notRestored: all, refused: refused.length, records: outcomes, requests });
  return { ...base, notRestored: all, refused: refused.length, records: outcomes, runId: run.id, requests };
}

// The rollback's record planner. Every record of the snapshot the selection takes in comes back as
// it was, in the same run:
//  - live ones get their fields back (three-way: later edits are conflicts);
//  - ones no listing shows but that answer by id — archived in place by a delete (the deployed
//    service), or left in a collection that was deleted — get every field back in one PUT, moved
//    into the recreated collection where theirs was; a sub-record archived at the snapshot stays so;
//  - ones the service no longer holds (the published interface deletes a row, and the rows of a
//    deleted collection) are made anew with their sub-records, cells and threads, archived ones
//    archived again — as `restore records` does;
//  - records created since are listed (archived when --kinds names records).
// Only `--kinds` without records leaves a deleted row out; it is then named with the command that
// brings it back one by one.

import type { BoardRecord } from '../../domain/entities.js';
import { commandLine } from '../../domain/shell-command.js';
import { planContent, POSITION_UNSEEN } from '../module/plan-content.js';
import type { PlanContext } from './context.js';

const FIELDS = ['name', 'position', 'isCompleted', 'isArchived'] as const;

export function restoreRecordsCommand(ids: readonly string[]): string {
  return commandLine(['wbsync', 'restore', 'records', ...ids]);
}

/** Which records of the snapshot are gone for good and are made anew (their ids into ctx). */
function chooseRecreated(ctx: PlanContext): void {
  const { base } = ctx;
  const gone = (r: BoardRecord): boolean => !ctx.liveRecords.has(r.id);
  const out = ctx.recreatedRecords;
  for (const r of base.records) {
    if (r.parentRecordId !== null || !gone(r)) continue;
    // records of a recreated collection come back with it whatever else is selected
    if (r.collectionId !== null && ctx.recreated.has(r.collectionId)) {
      out.add(r.id);
      continue;
    }
    if (ctx.pick.record(r.id)) {
      if (r.collectionId !== null && ctx.collectionUsable(r.collectionId)) out.add(r.id);
      else declare(ctx, r, `deleted since the snapshot, and its collection ${r.collectionId ?? '(none)'} is gone too: include it (--kinds collections) to recreate both`);
    } else if (ctx.pick.recordButForKinds(r.id)) {
      declare(ctx, r, `deleted since the snapshot (--kinds leaves records out): bring it back with ${restoreRecordsCommand([r.id])}`);
    }
  }
  for (const r of base.records) {
    if (r.parentRecordId === null) continue;
    // a parent left out takes its sub-records along (declared with it)
    if (ctx.declaredRecords.has(r.parentRecordId)) {
      ctx.declaredRecords.add(r.id);
      continue;
    }
    // a parent made anew takes every sub-record it had (one still answering by id is an orphan now)
    if (out.has(r.parentRecordId)) out.add(r.id);
    else if (!gone(r) || !ctx.liveRecords.has(r.parentRecordId)) continue;
    else if (ctx.pick.record(r.id)) out.add(r.id);
    else if (ctx.pick.recordButForKinds(r.id)) declare(ctx, r, `deleted since the snapshot (--kinds leaves records out): bring it back with ${restoreRecordsCommand([r.parentRecordId])}`);
  }
  for (const id of out) ctx.recreated.add(id);
}

function declare(ctx: PlanContext, r: BoardRecord, reason: string): void {
  ctx.declaredRecords.add(r.id);
  ctx.notRestored.push({ entity: r.parentRecordId ? 'subrecord' : 'record', id: r.id, label: ctx.recordLabel(r), reason });
}

/** Fields back on the records that are live or answer by id. */
function planInPlace(ctx: PlanContext): void {
  for (const r of ctx.base.records) {
    const now = ctx.liveRecords.get(r.id);
    if (!now || ctx.recreatedRecords.has(r.id) || ctx.input.fieldsCounted?.has(r.id)) continue;
    const movedOut = r.collectionId !== null && ctx.recreated.has(r.collectionId);
    const selected = ctx.pick.record(r.id);
    const found = ctx.found.get(r.id);
    if ((found || now.isArchived) && !selected && !movedOut && ctx.pick.recordButForKinds(r.id) && !r.isArchived) {
      declare(ctx, r, `deleted since the snapshot (--kinds leaves records out): bring it back with ${restoreRecordsCommand([r.parentRecordId ?? r.id])}`);
      continue;
    }
    if (!selected && !movedOut) continue;
    // a sub-record found by id (under a parent archived, or left in a deleted collection) comes back
    // with its parent, its own fields as they were
    const foundSub = found !== undefined && r.parentRecordId !== null;
    if (found === 'stranded' && !movedOut && !foundSub) {
      declare(ctx, r, `its collection ${r.collectionId ?? '(none)'} is gone: include it (--kinds collections) to recreate it`);
      continue;
    }
    const was = ctx.afterRecords.get(r.id);
    const body: Record<string, unknown> = {};
    let collection: string | undefined;
    // Archived now, live at the snapshot: no listing shows it, so its fields cannot be read (what we
    // hold is the last pass's) and nobody could have edited it since: every field goes back.
    const unarchive = found === 'archived' || foundSub || (selected && now.isArchived && !r.isArchived);
    if (unarchive || (found === 'stranded' && movedOut)) {
      // One archived at the snapshot (and so still) is left as it is.
      if (found !== undefined && r.isArchived && !movedOut) continue;
      // (a run narrowed by the feed takes only the fields its rows show, unless no listing shows it)
      for (const f of FIELDS) if (r[f] !== null && (found !== undefined || ctx.pick.field(r.id, f))) body[f] = r[f];
      // archived before the first backup, never listed: nobody told us where it sat
      if (r.position === null) ctx.notRestored.push({ entity: r.parentRecordId ? 'subrecord' : 'record', id: r.id, label: ctx.recordLabel(r), reason: POSITION_UNSEEN });
      if (!r.isArchived) ctx.writes.push({ entity: 'record', id: r.id, label: ctx.recordLabel(r), field: 'isArchived', live: true, base: false, after: true });
      // nor can where it sits now (a move before the delete, maybe into a collection deleted since):
      // it goes back into its collection too
      if (!movedOut && r.parentRecordId === null && r.collectionId) {
        if (ctx.liveCollections.has(r.collectionId)) collection = r.collectionId;
        else ctx.notRestored.push({ entity: 'record', id: r.id, label: ctx.recordLabel(r), reason: `its collection ${r.collectionId} is gone: include it (--kinds collections) to recreate it` });
      }
    } else if (selected) {
      for (const f of FIELDS) {
        if (ctx.pick.field(r.id, f) && !ctx.same(now[f], r[f]) && ctx.decide({ entity: 'record', id: r.id, label: ctx.recordLabel(r), field: f, live: now[f], base: r[f], after: was?.[f] ?? null })) body[f] = r[f];
      }
      // a sub-record may carry a collection deleted before the snapshot (its parent moved away, the
      // old collection deleted): the service keeps that id, there is nothing to put back
      const hadCollection = (): boolean => r.collectionId !== null && ctx.base.collections.some((c) => c.id === r.collectionId);
      if (!movedOut && r.collectionId && !ctx.same(now.collectionId, r.collectionId) && hadCollection() && ctx.pick.field(r.id, 'collectionId') && ctx.decide({ entity: 'record', id: r.id, label: ctx.recordLabel(r), field: 'collectionId', live: now.collectionId, base: r.collectionId, after: was?.collectionId ?? null })) {
        if (ctx.liveCollections.has(r.collectionId)) collection = r.collectionId;
        else ctx.notRestored.push({ entity: 'record', id: r.id, label: ctx.recordLabel(r), reason: `its collection ${r.collectionId} is gone: include it (--kinds collections) to recreate it` });
      }
    }
    if (movedOut && r.collectionId) {
      collection = r.collectionId;
      ctx.writes.push({ entity: 'record', id: r.id, label: ctx.recordLabel(r), field: 'collectionId', live: now.collectionId, base: r.collectionId, after: was?.collectionId ?? null });
    }
    if (Object.keys(body).length || collection) {
      ctx.liveIds.set(r.id, 'record');
      if (collection && !ctx.recreated.has(collection)) ctx.liveIds.set(collection, 'collection');
      ctx.steps.records.push({ op: 'updateRecord', key: `record-fields:${r.id}`, target: r.id, body, ...(collection ? { collection } : {}), label: ctx.recordLabel(r) });
    }
  }
}

/** Records gone for good, made anew with their sub-records, cells and threads. */
function planRecreated(ctx: PlanContext): void {
  const ids = ctx.recreatedRecords;
  if (!ids.size) return;
  const { base, live, input } = ctx;
  const records = base.records.filter((r) => ids.has(r.id));
  const usable = [...live.columns, ...base.columns.filter((c) => ctx.recreatedColumns.has(c.id))];
  // what the copies are made in or under keeps its id
  for (const c of live.columns) if (!ctx.repointedColumns.has(c.id)) ctx.liveIds.set(c.id, 'column');
  for (const id of ctx.liveCollections.keys()) ctx.liveIds.set(id, 'collection');
  const liveParents = new Map<string, BoardRecord>();
  for (const r of records) {
    const p = r.parentRecordId !== null && !ids.has(r.parentRecordId) ? ctx.liveRecords.get(r.parentRecordId) : undefined;
    if (p) {
      liveParents.set(p.id, p);
      ctx.liveIds.set(p.id, 'record');
    }
  }
  const content = planContent({
    records,
    liveParents,
    cells: base.cells.filter((c) => ids.has(c.recordId)),
    amendments: base.amendments.filter((a) => ids.has(a.recordId)),
    columns: usable,
    collectionOf: (r) => r.collectionId,
    collectionExists: (id) => ctx.collectionUsable(id),
    moduleId: ctx.moduleId,
    workspaceId: input.workspaceId,
    internal: ctx.recreated,
    ext: (v) => v,
    foreignModules: () => [],
    moduleName: (id) => id,
    attribution: input.attribution,
    userNames: input.userNames,
    pruneSeeded: false,
  });
  for (const p of content.phases) ctx.steps.content.push({ name: `records recreated: ${p.name}`, steps: p.steps });
  for (const [k, n] of Object.entries(content.counts)) ctx.count(`recreated ${k}`, n);
  ctx.notRestored.push(...content.notRestored);
  for (const r of records) ctx.writes.push({ entity: 'record', id: r.id, label: ctx.recordLabel(r), field: '(deleted)', live: null, base: r.name, after: ctx.afterRecords.get(r.id)?.name ?? null });
}

/** Records created since the snapshot: listed, archived when --kinds names records. */
function planNewRecords(ctx: PlanContext): { id: string; name: string; archived: boolean }[] {
  const { sel } = ctx;
  const out: { id: string; name: string; archived: boolean }[] = [];
  for (const r of ctx.live.records) {
    if (ctx.baseRecords.has(r.id) || r.isArchived) continue;
    if (!ctx.pick.inCollections(r.id) || (sel.touched && !sel.touched.records.has(r.id))) continue;
    const archive = sel.kindsNamed && sel.kinds.has('records') && !sel.columns;
    out.push({ id: r.id, name: r.name, archived: archive });
    if (archive && (!r.parentRecordId || !out.some((n) => n.id === r.parentRecordId))) {
      ctx.liveIds.set(r.id, 'record');
      ctx.steps.archival.push({ op: 'archiveRecord', key: `archive-new:${r.id}`, target: r.id });
    }
  }
  return out;
}

export function planRecords(ctx: PlanContext): { id: string; name: string; archived: boolean }[] {
  chooseRecreated(ctx);
  planInPlace(ctx);
  planRecreated(ctx);
  ctx.notRestored.push(...(ctx.base.erased ?? []));
  return planNewRecords(ctx);
}

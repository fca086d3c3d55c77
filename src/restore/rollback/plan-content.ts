// The rollback's planners for what people wrote into live records: cell values (put back, cleared,
// or created — in a recreated column too) and amendment threads (deleted amendments posted again with
// their threads, edited ones given their text back). Records made anew carry their own cells and
// amendments (plan-records.ts); records declared not restored take theirs along unlisted.

import type { Amendment, Cell } from '../../domain/entities.js';
import { attributionLine } from '../module/plan-content.js';
import type { Step } from '../engine/plan-steps.js';
import { remappableCell } from '../engine/remap.js';
import { threadOrder } from '../engine/sibling-order.js';
import type { FieldChange } from './selection.js';
import { byId, cellsByKey, type PlanContext } from './context.js';
import { restoreRecordsCommand } from './plan-records.js';

const notLive = (recordId: string): string => `its record is not live: restore the record first (${restoreRecordsCommand([recordId])})`;

export function planCells(ctx: PlanContext): void {
  const { base, after, live, moduleId } = ctx;
  const baseCells = cellsByKey(base.cells);
  const afterCells = cellsByKey(after.cells);
  const liveCells = cellsByKey(live.cells);
  const columnOf = new Map([...base.columns, ...live.columns].map((c) => [c.id, c]));
  const baseColumnIds = new Set(base.columns.map((c) => c.id));
  for (const key of new Set([...baseCells.keys(), ...liveCells.keys()])) {
    const b = baseCells.get(key);
    const l = liveCells.get(key);
    const [recordId, columnId] = key.split('|') as [string, string];
    // a column made since the snapshot (a recreated copy included, on a resumed run) is not ours
    if (!baseColumnIds.has(columnId) || ctx.recreatedRecords.has(recordId) || ctx.declaredRecords.has(recordId)) continue;
    const inRecreated = ctx.recreatedColumns.has(columnId);
    if (!inRecreated && !ctx.pick.cell(recordId, columnId)) continue;
    const rec = ctx.liveRecords.get(recordId);
    const label = `${rec ? ctx.recordLabel(rec) : recordId} · ${columnOf.get(columnId)?.name ?? columnId}`;
    const change: FieldChange = { entity: 'cell', id: b?.id ?? l!.id, label, field: 'value', live: inRecreated ? null : (l?.value ?? null), base: b?.value ?? null, after: afterCells.get(key)?.value ?? null };
    const later = ctx.sel.laterEdits?.get(key);
    if (later !== undefined) change.later = later;
    if (!(inRecreated ? b?.value != null && (ctx.writes.push(change), true) : ctx.decide(change))) {
      repointRelationCell(ctx, l, label);
      continue;
    }
    if (!rec) {
      ctx.notRestored.push({ entity: 'cell', id: change.id, label, reason: notLive(recordId) });
      continue;
    }
    if (!ctx.columnUsable(columnId)) {
      ctx.notRestored.push({ entity: 'cell', id: change.id, label, reason: 'its column is gone: include it (--kinds columns or --column) to recreate it' });
      continue;
    }
    // a column the run re-points (maybe by making it anew) is named through the journal; a relation
    // column is never made anew, so its cells are written as any live column's
    const repointed = ctx.repointedColumns.has(columnId);
    const liveColumn = !inRecreated && (!repointed || ctx.keptColumns.has(columnId));
    // a cell made anew needs its record's place; a sub-record whose parent is not live (marked
    // gone without it) has none
    const top = ctx.topOf(recordId, ctx.liveRecords);
    if (b?.value != null && !(l && liveColumn) && !top) {
      ctx.notRestored.push({ entity: 'cell', id: change.id, label, reason: notLive(rec.parentRecordId ?? recordId) });
      continue;
    }
    ctx.count('cells');
    if (b?.value == null) {
      ctx.liveIds.set(l!.id, 'cell');
      ctx.steps.cells.push({ op: 'clearCell', key: `clear-cell:${l!.id}`, target: l!.id, label });
    } else if (l && liveColumn) {
      ctx.liveIds.set(l.id, 'cell');
      ctx.steps.cells.push({ op: 'setCell', key: `set-cell:${l.id}`, target: l.id, value: remappableCell(b.value, ctx.recreated), label });
    } else {
      ctx.liveIds.set(recordId, 'record');
      if (top!.collectionId) ctx.liveIds.set(top!.collectionId, 'collection');
      if (liveColumn && !repointed) ctx.liveIds.set(columnId, 'column');
      ctx.steps.cells.push({
        op: 'createCell',
        kind: 'cell',
        key: `cell:${b.id}`,
        oldId: b.id,
        record: recordId,
        column: columnId,
        collection: top!.collectionId ?? '',
        module: moduleId,
        workspaceId: ctx.input.workspaceId,
        value: remappableCell(b.value, ctx.recreated),
        label,
      });
    }
  }
}

/**
 * A live relation cell the plan leaves as it is, naming records the run makes anew: the same links,
 * to the copies (written only when it names one; the value is otherwise kept as it is live).
 */
function repointRelationCell(ctx: PlanContext, l: Cell | undefined, label: string): void {
  if (!l?.value || !l.columnId || ctx.recreatedColumns.has(l.columnId) || ctx.repointedColumns.has(l.columnId) || !ctx.liveRecords.has(l.recordId)) return;
  const value = remappableCell(l.value, ctx.recreatedRecords);
  if (!value.refs.length) return;
  ctx.count('relationCellsRepointed');
  ctx.liveIds.set(l.id, 'cell');
  ctx.steps.cells.push({ op: 'setCell', key: `repoint-cell:${l.id}`, target: l.id, value, label });
}

export function planAmendments(ctx: PlanContext): void {
  const { base, after, live, input } = ctx;
  const liveNotes = byId(live.amendments);
  const afterAmendments = byId(after.amendments);
  const reposted = ctx.reposted;
  const tombstones: Step[] = [];
  const byRecord = new Map<string, Amendment[]>();
  for (const a of base.amendments) {
    if (ctx.pick.amendment(a) && !ctx.recreatedRecords.has(a.recordId) && !ctx.declaredRecords.has(a.recordId)) byRecord.set(a.recordId, [...(byRecord.get(a.recordId) ?? []), a]);
  }
  for (const [recordId, list] of byRecord) {
    for (const a of threadOrder(list)) {
      const now = liveNotes.get(a.id);
      const label = `${ctx.baseRecords.get(recordId)?.name ?? recordId}: ${a.message.slice(0, 40)}`;
      if (now) {
        if (!a.isDeleted && ctx.decide({ entity: 'amendment', id: a.id, label, field: 'message', live: now.message, base: a.message, after: afterAmendments.get(a.id)?.message ?? null })) {
          ctx.liveIds.set(a.id, 'amendment');
          ctx.steps.amendments.push({ op: 'updateAmendment', key: `amendment-text:${a.id}`, target: a.id, message: a.message, label, chain: `notes:${recordId}` });
        }
        continue;
      }
      // An amendment deleted before the snapshot stood as a tombstone only because replies lived: it is
      // rebuilt (posted, then deleted after its replies) when those replies come back too.
      const tombstone = a.isDeleted;
      if (tombstone && !list.some((x) => x.parentId === a.id && !x.isDeleted && !liveNotes.has(x.id))) continue;
      if (!ctx.liveRecords.has(recordId)) {
        ctx.notRestored.push({ entity: 'amendment', id: a.id, label, reason: notLive(recordId) });
        continue;
      }
      const parentOk = a.parentId === null || liveNotes.has(a.parentId) || reposted.has(a.parentId);
      if (!parentOk) {
        ctx.notRestored.push({ entity: 'amendment', id: a.id, label, reason: 'it replies to an amendment that is gone and not restored' });
        continue;
      }
      const shown = (n: Amendment | undefined): string | null => (n ? (n.isDeleted ? '(deleted amendment with replies)' : n.message) : null);
      if (!ctx.decide({ entity: 'amendment', id: a.id, label, field: '(deleted)', live: null, base: shown(a), after: shown(afterAmendments.get(a.id)) })) continue;
      reposted.add(a.id);
      ctx.count('amendments');
      ctx.liveIds.set(recordId, 'record');
      if (a.parentId && !reposted.has(a.parentId)) ctx.liveIds.set(a.parentId, 'amendment');
      const author = a.userId ? (input.userNames?.get(a.userId) ?? a.userId) : 'a deleted note';
      const line = attributionLine(input.attribution, author, a.createdAt ?? 'an unknown time');
      const text = tombstone ? '' : a.message;
      const message = line ? (text ? `${text}\n\n${line}` : line) : text;
      ctx.steps.amendments.push({ op: 'createAmendment', kind: 'amendment', key: `amendment:${a.id}`, oldId: a.id, chain: `notes:${recordId}`, record: recordId, parent: a.parentId, message: message || (tombstone ? '(deleted note)' : '(empty note)') });
      if (tombstone) tombstones.push({ op: 'deleteAmendment', key: `tombstone:${a.id}`, target: a.id, chain: `notes:${recordId}` });
    }
    ctx.steps.amendments.push(...tombstones.splice(0));
  }
}

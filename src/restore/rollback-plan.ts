// The rollback planner: pure. Three sides of one live module — the snapshot to go back to (base),
// the state the damage left (after) and the service now (live) — and a selection; out come the
// writes that put the selected part back in place, and the conflicts: fields someone edited after
// the damage (live differs from both base and after), kept unless forced. Ids stay the live ones;
// what was deleted since is recreated with new ids through the journal, as restore module does.

import type { Amendment, BoardRecord, Cell, Collection, Column } from '../domain/entities.js';
import { canon } from './diff.js';
import { threadOrder } from './diff-match.js';
import { attributionLine, planContent, POSITION_UNSEEN } from './plan-content.js';
import { columnThen, type ColumnThen, type NotRestored, type Phase, type RestorePlan, type Step } from './plan-steps.js';
import { remappable, remappableCell } from './remap.js';
import type { FieldChange, RollbackSelection } from './rollback-selection.js';
import { pinnedVerdict } from './rollback-damage.js';
import type { ModuleTree } from './tree.js';
import { commandLine } from '../domain/shell-command.js';

export { ROLLBACK_KINDS, type FieldChange, type RollbackKind, type RollbackSelection, type Touched } from './rollback-selection.js';

export interface RollbackInput {
  base: ModuleTree;
  after: ModuleTree;
  live: ModuleTree;
  selection: RollbackSelection;
  force: boolean;
  workspaceId: string;
  attribution: string;
  userNames?: ReadonlyMap<string, string>;
  /** Records of deleted collections found by id: their fields cannot be read, so every field goes
   * back (one PUT with the move into the recreated copy). */
  stranded?: ReadonlySet<string>;
}

export interface RollbackPlan {
  plan: RestorePlan;
  /** Every field the plan writes back (live → base). */
  writes: FieldChange[];
  /** Fields edited after the damage: left alone, or written too when forced. */
  conflicts: FieldChange[];
  /** Records created after the snapshot: listed; archived only when --kinds names records. */
  newRecords: { id: string; name: string; archived: boolean }[];
  counts: Record<string, number>;
  /** Live ids the plan names (the journal maps each onto itself). */
  liveIds: Map<string, 'collection' | 'column' | 'record' | 'cell' | 'amendment'>;
}

type Verdict = 'same' | 'restore' | 'conflict';

/** A value canon() writes as itself: compared with === (canon is a JSON.stringify per call). */
const plain = (v: unknown): boolean => v === null || v === undefined || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
const sameValue = (a: unknown, b: unknown): boolean => (plain(a) && plain(b) ? (a ?? null) === (b ?? null) : canon(a ?? null) === canon(b ?? null));

function threeWay(base: unknown, after: unknown, live: unknown): Verdict {
  if (sameValue(live, base)) return 'same';
  return sameValue(live, after) ? 'restore' : 'conflict';
}

const byId = <T extends { id: string }>(list: readonly T[]): Map<string, T> => new Map(list.map((x) => [x.id, x]));
const cellKey = (c: Pick<Cell, 'recordId' | 'columnId'>): string => `${c.recordId}|${c.columnId}`;
const cellsByKey = (list: readonly Cell[]): Map<string, Cell> => new Map(list.filter((c) => c.columnId !== null).map((c) => [cellKey(c), c]));

export function planRollback(input: RollbackInput): RollbackPlan {
  const { base, after, live, selection: sel, force } = input;
  const moduleId = live.module.id;
  const writes: FieldChange[] = [];
  const conflicts: FieldChange[] = [];
  const notRestored: NotRestored[] = [];
  const counts: Record<string, number> = {};
  const liveIds = new Map<string, 'collection' | 'column' | 'record' | 'cell' | 'amendment'>();
  const count = (k: string, n = 1): void => {
    counts[k] = (counts[k] ?? 0) + n;
  };
  const steps = { collections: [] as Step[], columns: [] as Step[], records: [] as Step[], cells: [] as Step[], amendments: [] as Step[], archival: [] as Step[] };

  const baseRecords = byId(base.records);
  const afterRecords = byId(after.records);
  const liveRecords = byId(live.records);
  const liveColumns = byId(live.columns);
  const liveCollections = byId(live.collections);
  const topOf = (id: string, from: Map<string, BoardRecord>): BoardRecord | undefined => {
    const r = from.get(id);
    return r?.parentRecordId ? from.get(r.parentRecordId) : r;
  };
  const recordLabel = (r: BoardRecord): string => (r.parentRecordId ? `${baseRecords.get(r.parentRecordId)?.name ?? r.parentRecordId} › ${r.name}` : r.name);

  /** Decides one field; true when it is to be written back. */
  const decide = (change: FieldChange): boolean => {
    const v = pinnedVerdict(threeWay(change.base, change.after, change.live), change.later);
    if (v === 'same') return false;
    if (v === 'conflict') {
      if (sameValue(change.after, change.base)) change.unseen = true;
      conflicts.push(change);
      if (!force) return false;
    }
    writes.push(change);
    return true;
  };

  // --- selection
  const inRecords = (recordId: string): boolean => {
    if (!sel.records) return true;
    const r = baseRecords.get(recordId) ?? liveRecords.get(recordId);
    return sel.records.has(recordId) || (!!r?.parentRecordId && sel.records.has(r.parentRecordId));
  };
  const inCollections = (recordId: string): boolean => {
    if (!sel.collections) return true;
    const top = topOf(recordId, baseRecords) ?? topOf(recordId, liveRecords);
    return !!top?.collectionId && sel.collections.has(top.collectionId);
  };
  const recordSelected = (id: string): boolean =>
    sel.kinds.has('records') && inRecords(id) && inCollections(id) && !sel.columns && (!sel.touched || sel.touched.records.has(id));
  /** With a feed selection, only the fields its rows changed (a person's other edits stay). */
  const fieldSelected = (id: string, field: string): boolean => !sel.touched || sel.touched.recordFields.get(id)?.has(field) === true;
  const cellSelected = (recordId: string, columnId: string): boolean =>
    sel.kinds.has('cells') && inRecords(recordId) && inCollections(recordId) && (!sel.columns || sel.columns.has(columnId)) && (!sel.touched || sel.touched.cells.has(`${recordId}|${columnId}`));
  const columnSelected = (id: string): boolean => sel.kinds.has('columns') && !sel.records && !sel.collections && (!sel.columns || sel.columns.has(id)) && (!sel.touched || sel.touched.columns.has(id));
  const collectionSelected = (id: string): boolean =>
    sel.kinds.has('collections') && !sel.records && !sel.columns && (!sel.collections || sel.collections.has(id)) && (!sel.touched || sel.touched.collections.has(id));
  const amendmentSelected = (a: Amendment): boolean =>
    sel.kinds.has('amendments') && inRecords(a.recordId) && inCollections(a.recordId) && !sel.columns && (!sel.touched || sel.touched.records.has(a.recordId));

  // --- collections: recreate the deleted, put fields back on the live
  const recreated = new Set<string>();
  const afterCollections = byId(after.collections);
  for (const c of base.collections) {
    if (!collectionSelected(c.id)) continue;
    const now = liveCollections.get(c.id);
    if (!now) {
      recreated.add(c.id);
      count('collectionsRecreated');
      writes.push({ entity: 'collection', id: c.id, label: c.name, field: '(deleted)', live: null, base: c.name, after: afterCollections.get(c.id)?.name ?? null });
      steps.collections.push({
        op: 'createCollection',
        kind: 'collection',
        key: `collection:${c.id}`,
        oldId: c.id,
        module: moduleId,
        body: { name: c.name, ...(c.color ? { color: c.color } : {}), ...(c.position !== null ? { position: c.position } : {}) },
        then: { ...(c.position !== null ? { position: c.position } : {}), ...(c.isCollapsed ? { isCollapsed: true } : {}) },
      });
      continue;
    }
    const was = afterCollections.get(c.id);
    const body: Record<string, unknown> = {};
    for (const f of ['name', 'color', 'position', 'isCollapsed'] as const) {
      if (decide({ entity: 'collection', id: c.id, label: c.name, field: f, live: now[f], base: c[f], after: was?.[f] ?? null })) body[f] = c[f];
    }
    if (Object.keys(body).length) {
      liveIds.set(c.id, 'collection');
      steps.collections.push({ op: 'updateCollection', key: `collection-fields:${c.id}`, target: c.id, body: body as Partial<Collection>, label: c.name } as Step);
    }
  }

  // --- columns: recreate the deleted (with their cells), put fields back on the live
  const afterColumns = byId(after.columns);
  const recreatedColumns = new Set<string>();
  for (const c of base.columns) {
    if (!columnSelected(c.id)) continue;
    const now = liveColumns.get(c.id);
    if (!now) {
      recreatedColumns.add(c.id);
      recreated.add(c.id);
      count('columnsRecreated');
      writes.push({ entity: 'column', id: c.id, label: c.name, field: '(deleted)', live: null, base: c.name, after: afterColumns.get(c.id)?.name ?? null });
      const then = columnThen(c);
      const settings = c.settings && Object.keys(c.settings).length ? { settings: c.settings } : {};
      steps.columns.push({ op: 'createColumn', kind: 'column', key: `column:${c.id}`, oldId: c.id, module: moduleId, body: remappable({ name: c.name, type: c.type, scope: c.scope, ...settings }, recreated), then });
      continue;
    }
    const was = afterColumns.get(c.id);
    const body: Record<string, unknown> = {};
    for (const f of ['name', 'width', 'position', 'isRequired', 'isHidden', 'statusOptions', 'settings'] as const) {
      if (f === 'statusOptions' && c.type !== 'status') continue;
      if (decide({ entity: 'column', id: c.id, label: c.name, field: f, live: now[f], base: c[f], after: was?.[f] ?? null })) body[f] = c[f];
    }
    if (Object.keys(body).length) {
      liveIds.set(c.id, 'column');
      steps.columns.push({ op: 'updateColumn', key: `column-fields:${c.id}`, target: c.id, body: body as ColumnThen, label: c.name });
    }
  }
  const columnUsable = (id: string): boolean => liveColumns.has(id) || recreatedColumns.has(id);

  // --- records: fields back (un-archive in place); a record moved out of a recreated collection
  // goes back into the copy
  // Records gone with a recreated collection (the published service deletes a collection's records
  // with it) are recreated in the copy, with their sub-records, cells and threads.
  const gone = (r: BoardRecord): boolean => !liveRecords.has(r.id);
  const withCollection = new Set(base.records.filter((r) => r.parentRecordId === null && gone(r) && r.collectionId !== null && recreated.has(r.collectionId)).map((r) => r.id));
  for (const r of base.records) if (r.parentRecordId !== null && gone(r) && withCollection.has(r.parentRecordId)) withCollection.add(r.id);
  for (const r of base.records) {
    const now = liveRecords.get(r.id);
    const movedOut = r.collectionId !== null && recreated.has(r.collectionId);
    if (!recordSelected(r.id) && !movedOut) continue;
    if (withCollection.has(r.id)) continue;
    if (!now) {
      notRestored.push({ entity: r.parentRecordId ? 'subrecord' : 'record', id: r.id, label: recordLabel(r), reason: `deleted since the snapshot: bring it back with ${commandLine(['wbsync', 'restore', 'records', r.id])}` });
      continue;
    }
    const was = afterRecords.get(r.id);
    const body: Record<string, unknown> = {};
    let collection: string | undefined;
    if (recordSelected(r.id)) {
      for (const f of ['name', 'position', 'isCompleted', 'isArchived'] as const) {
        if (fieldSelected(r.id, f) && decide({ entity: 'record', id: r.id, label: recordLabel(r), field: f, live: now[f], base: r[f], after: was?.[f] ?? null })) body[f] = r[f];
      }
      if (!movedOut && r.collectionId && fieldSelected(r.id, 'collectionId') && decide({ entity: 'record', id: r.id, label: recordLabel(r), field: 'collectionId', live: now.collectionId, base: r.collectionId, after: was?.collectionId ?? null })) {
        if (liveCollections.has(r.collectionId)) collection = r.collectionId;
        else notRestored.push({ entity: 'record', id: r.id, label: recordLabel(r), reason: `its collection ${r.collectionId} is gone: include it (--kinds collections) to recreate it` });
      }
    }
    if (movedOut && input.stranded?.has(r.id)) {
      for (const f of ['name', 'position', 'isCompleted', 'isArchived'] as const) if (r[f] !== null) body[f] = r[f];
      // archived before the first backup, never listed: nobody told us where it sat
      if (r.position === null) notRestored.push({ entity: r.parentRecordId ? 'subrecord' : 'record', id: r.id, label: recordLabel(r), reason: POSITION_UNSEEN });
    }
    if (movedOut && r.collectionId) {
      collection = r.collectionId;
      writes.push({ entity: 'record', id: r.id, label: recordLabel(r), field: 'collectionId', live: now.collectionId, base: r.collectionId, after: was?.collectionId ?? null });
    }
    if (Object.keys(body).length || collection) {
      liveIds.set(r.id, 'record');
      if (collection && !recreated.has(collection)) liveIds.set(collection, 'collection');
      steps.records.push({ op: 'updateRecord', key: `record-fields:${r.id}`, target: r.id, body, ...(collection ? { collection } : {}), label: recordLabel(r) });
    }
  }
  const contentPhases: Phase[] = [];
  if (withCollection.size) {
    const records = base.records.filter((r) => withCollection.has(r.id));
    const usable = [...live.columns, ...base.columns.filter((c) => recreatedColumns.has(c.id))];
    for (const c of live.columns) liveIds.set(c.id, 'column');
    for (const id of liveCollections.keys()) liveIds.set(id, 'collection'); // a sub-record placed in a live one
    const content = planContent({
      records,
      cells: base.cells.filter((c) => withCollection.has(c.recordId)),
      amendments: base.amendments.filter((a) => withCollection.has(a.recordId)),
      columns: usable,
      collectionOf: (r) => r.collectionId,
      collectionExists: (id) => liveCollections.has(id) || recreated.has(id),
      moduleId,
      workspaceId: input.workspaceId,
      internal: new Set([...withCollection, ...recreated]),
      ext: (v) => v,
      foreignModules: () => [],
      moduleName: (id) => id,
      attribution: input.attribution,
      userNames: input.userNames,
      pruneSeeded: false,
    });
    for (const p of content.phases) contentPhases.push({ name: `records of recreated collections: ${p.name}`, steps: p.steps });
    for (const [k, n] of Object.entries(content.counts)) count(`recreated ${k}`, n);
    notRestored.push(...content.notRestored);
    for (const r of records) writes.push({ entity: 'record', id: r.id, label: recordLabel(r), field: '(deleted)', live: null, base: r.name, after: afterRecords.get(r.id)?.name ?? null });
  }
  notRestored.push(...(base.erased ?? []));
  const newRecords: RollbackPlan['newRecords'] = [];
  for (const r of live.records) {
    if (baseRecords.has(r.id) || r.isArchived) continue;
    if (!inCollections(r.id) || (sel.touched && !sel.touched.records.has(r.id))) continue;
    const archive = sel.kindsNamed && sel.kinds.has('records') && !sel.columns;
    newRecords.push({ id: r.id, name: r.name, archived: archive });
    if (archive && (!r.parentRecordId || !newRecords.some((n) => n.id === r.parentRecordId))) {
      liveIds.set(r.id, 'record');
      steps.archival.push({ op: 'archiveRecord', key: `archive-new:${r.id}`, target: r.id });
    }
  }

  // --- cells: value back, cleared, or created (in a recreated column too)
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
    if (!baseColumnIds.has(columnId) || withCollection.has(recordId)) continue;
    const inRecreated = recreatedColumns.has(columnId);
    if (!inRecreated && !cellSelected(recordId, columnId)) continue;
    const rec = liveRecords.get(recordId);
    const label = `${rec ? recordLabel(rec) : recordId} · ${columnOf.get(columnId)?.name ?? columnId}`;
    const change: FieldChange = { entity: 'cell', id: b?.id ?? l!.id, label, field: 'value', live: inRecreated ? null : (l?.value ?? null), base: b?.value ?? null, after: afterCells.get(key)?.value ?? null };
    const later = sel.laterEdits?.get(key);
    if (later !== undefined) change.later = later;
    if (!(inRecreated ? b?.value != null && (writes.push(change), true) : decide(change))) continue;
    if (!rec) {
      notRestored.push({ entity: 'cell', id: change.id, label, reason: 'its record is not live: restore the record first (wbsync restore records)' });
      continue;
    }
    if (!columnUsable(columnId)) {
      notRestored.push({ entity: 'cell', id: change.id, label, reason: 'its column is gone: include it (--kinds columns or --column) to recreate it' });
      continue;
    }
    count('cells');
    if (b?.value == null) {
      liveIds.set(l!.id, 'cell');
      steps.cells.push({ op: 'clearCell', key: `clear-cell:${l!.id}`, target: l!.id, label });
    } else if (l && !inRecreated) {
      liveIds.set(l.id, 'cell');
      steps.cells.push({ op: 'setCell', key: `set-cell:${l.id}`, target: l.id, value: remappableCell(b.value, recreated), label });
    } else {
      const top = topOf(recordId, liveRecords)!;
      liveIds.set(recordId, 'record');
      if (top.collectionId) liveIds.set(top.collectionId, 'collection');
      if (!inRecreated) liveIds.set(columnId, 'column');
      steps.cells.push({
        op: 'createCell',
        kind: 'cell',
        key: `cell:${b.id}`,
        oldId: b.id,
        record: recordId,
        column: columnId,
        collection: top.collectionId ?? '',
        module: moduleId,
        workspaceId: input.workspaceId,
        value: remappableCell(b.value, recreated),
        label,
      });
    }
  }

  // --- amendments: deleted since → posted again (threads kept); edited since → text back
  const liveNotes = byId(live.amendments);
  const afterNotes = byId(after.amendments);
  const reposted = new Set<string>();
  const tombstones: Step[] = [];
  const byRecord = new Map<string, Amendment[]>();
  for (const a of base.amendments) if (amendmentSelected(a) && !withCollection.has(a.recordId)) byRecord.set(a.recordId, [...(byRecord.get(a.recordId) ?? []), a]);
  for (const [recordId, list] of byRecord) {
    for (const a of threadOrder(list)) {
      const now = liveNotes.get(a.id);
      const label = `${baseRecords.get(recordId)?.name ?? recordId}: ${a.message.slice(0, 40)}`;
      if (now) {
        if (!a.isDeleted && decide({ entity: 'amendment', id: a.id, label, field: 'message', live: now.message, base: a.message, after: afterNotes.get(a.id)?.message ?? null })) {
          liveIds.set(a.id, 'amendment');
          steps.amendments.push({ op: 'updateAmendment', key: `amendment-text:${a.id}`, target: a.id, message: a.message, label, chain: `notes:${recordId}` });
        }
        continue;
      }
      // A note deleted before the snapshot stood as a tombstone only because replies lived: it is
      // rebuilt (posted, then deleted after its replies) when those replies come back too.
      const tombstone = a.isDeleted;
      if (tombstone && !list.some((x) => x.parentId === a.id && !x.isDeleted && !liveNotes.has(x.id))) continue;
      if (!liveRecords.has(recordId)) {
        notRestored.push({ entity: 'amendment', id: a.id, label, reason: 'its record is not live: restore the record first (wbsync restore records)' });
        continue;
      }
      const parentOk = a.parentId === null || liveNotes.has(a.parentId) || reposted.has(a.parentId);
      if (!parentOk) {
        notRestored.push({ entity: 'amendment', id: a.id, label, reason: 'it replies to a note that is gone and not restored' });
        continue;
      }
      const shown = (n: Amendment | undefined): string | null => (n ? (n.isDeleted ? '(deleted note with replies)' : n.message) : null);
      if (!decide({ entity: 'amendment', id: a.id, label, field: '(deleted)', live: null, base: shown(a), after: shown(afterNotes.get(a.id)) })) continue;
      reposted.add(a.id);
      count('amendments');
      liveIds.set(recordId, 'record');
      if (a.parentId && !reposted.has(a.parentId)) liveIds.set(a.parentId, 'amendment');
      const author = a.userId ? (input.userNames?.get(a.userId) ?? a.userId) : 'a deleted note';
      const line = attributionLine(input.attribution, author, a.createdAt ?? 'an unknown time');
      const text = tombstone ? '' : a.message;
      const message = line ? (text ? `${text}\n\n${line}` : line) : text;
      steps.amendments.push({ op: 'createAmendment', kind: 'amendment', key: `amendment:${a.id}`, oldId: a.id, chain: `notes:${recordId}`, record: recordId, parent: a.parentId, message: message || (tombstone ? '(deleted note)' : '(empty note)') });
      if (tombstone) tombstones.push({ op: 'deleteAmendment', key: `tombstone:${a.id}`, target: a.id, chain: `notes:${recordId}` });
    }
    steps.amendments.push(...tombstones.splice(0));
  }

  for (const s of steps.collections) if (s.op === 'createCollection' || s.op === 'updateCollection') count('collections');
  for (const s of steps.columns) if (s.op === 'createColumn' || s.op === 'updateColumn') count('columns');
  count('records', steps.records.length);
  count('newRecordsArchived', steps.archival.length);
  const phases: Phase[] = (
    [
      ['collections', steps.collections],
      ['columns', steps.columns],
      // record fields and cell values do not wait for one another: one phase, no barrier between
      ['records and cells', [...steps.records, ...steps.cells]],
      ...contentPhases.map((p) => [p.name, p.steps] as const),
      ['amendments', steps.amendments],
      ['new records', steps.archival],
    ] as const
  )
    .filter(([, s]) => s.length)
    .map(([name, s]) => ({ name, steps: [...s] }));
  // what the run recreates or posts again gets a new id: it must never map onto itself
  for (const id of [...recreated, ...reposted, ...withCollection]) liveIds.delete(id);
  counts.conflicts = conflicts.length;
  const plan: RestorePlan = { moduleId, moduleName: live.module.name, targetWorkspaceId: input.workspaceId, phases, counts, notRestored };
  return { plan, writes, conflicts, newRecords, counts, liveIds };
}

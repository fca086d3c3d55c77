// Record and cell writes shared by routes, automations, revert and seeds: they keep indexes,
// activity rows, change signals, notifications and automation events consistent in one place.

import type { ColumnDoc, Json, ModuleDoc, RecordDoc, ValueDoc } from './docs.js';
import { notify } from './notify.js';
import { displayName, touchModule } from './touch.js';
import { emit, type World } from './world.js';
import type { Actor } from './actor.js';

export const SUBRECORD_SEED_STATUS = [
  { label: 'Not Started', color: '#94A3B8' },
  { label: 'Working on it', color: '#F59E0B' },
  { label: 'Stuck', color: '#EF4444' },
  { label: 'Done', color: '#22C55E' },
];

function nextPosition(w: World, ids: Iterable<string>): number {
  let max = -1;
  for (const id of ids) {
    const r = w.state.records.get(id);
    if (r && !r.isDeleted && typeof r.position === 'number' && r.position > max) max = r.position;
  }
  return max + 1;
}

export function createRecord(
  w: World,
  actor: Actor,
  mod: ModuleDoc,
  collectionId: string,
  name: unknown,
  parent: RecordDoc | null,
): RecordDoc {
  const at = w.state.clock.stamp();
  // Appended after the highest position, archived rows included (the deployed server's rule).
  const position = parent
    ? nextPosition(w, w.state.subRecordsByParent.get(parent._id))
    : nextPosition(w, w.state.recordsByCollection.get(collectionId));
  const doc: RecordDoc = {
    _id: w.state.ids.id(),
    module: mod._id,
    workspace: mod.workspace,
    collectionName: collectionId,
    parentRecord: parent ? parent._id : null,
    name,
    position,
    isCompleted: false,
    isArchived: false,
    createdBy: actor.user._id,
    createdAt: at,
    updatedAt: at,
    isDeleted: false,
    deletedAt: null,
  };
  w.state.addRecord(doc);
  touchModule(w, actor, mod, at);
  const label = displayName(name);
  w.activity.log(mod.workspace, actor, at, {
    action: 'record_created',
    message: parent ? `created sub-record "${label}" under "${displayName(parent.name)}"` : `created record "${label}"`,
    targetName: label,
    after: label,
    module: mod,
    collection: w.state.collections.get(collectionId) ?? null,
    record: doc,
  });
  emit(w, actor, { type: 'record_created', record: doc._id, actor: actor.user._id, depth: actor.depth });
  return doc;
}

export interface RecordPatch {
  name?: unknown;
  position?: unknown;
  collectionName?: string;
  isCompleted?: boolean;
  isArchived?: boolean;
}

export function updateRecord(w: World, actor: Actor, mod: ModuleDoc, rec: RecordDoc, patch: RecordPatch): void {
  const at = w.state.clock.stamp();
  const observed = w.rules.observed;
  const base = { module: mod, record: rec };
  const collectionRef = () => w.state.collections.get(rec.collectionName) ?? null;
  const moving = patch.collectionName !== undefined && patch.collectionName !== rec.collectionName;
  const renaming = patch.name !== undefined && patch.name !== rec.name;

  if (renaming) {
    const before = rec.name;
    rec.name = patch.name;
    w.activity.log(mod.workspace, actor, at, {
      ...base,
      action: 'record_updated',
      message: `renamed "${displayName(before)}" to "${displayName(rec.name)}"`,
      targetName: displayName(rec.name),
      before: displayName(before),
      after: displayName(rec.name),
      collection: collectionRef(),
      revert: { kind: 'rename', record: rec._id, name: before },
      // A PUT that moves and renames is logged as the move only.
      silentInObserved: moving,
    });
    if (!observed) emit(w, actor, { type: 'record_renamed', record: rec._id, actor: actor.user._id, depth: actor.depth });
  }
  if (moving && patch.collectionName !== undefined) {
    const from = w.state.collections.get(rec.collectionName);
    w.state.moveRecord(rec, patch.collectionName);
    const to = collectionRef();
    w.activity.log(mod.workspace, actor, at, {
      ...base,
      action: 'record_moved',
      // the deployed service names no collection in the text, and logs the two ids (which outlive
      // the collections: the row's own collection reads null once it is deleted)
      message: observed ? `moved "${displayName(rec.name)}" to another collection` : `moved "${displayName(rec.name)}" from "${from?.name ?? ''}" to "${to?.name ?? ''}"`,
      targetName: displayName(rec.name),
      before: observed ? (from?._id ?? null) : (from?.name ?? null),
      after: observed ? (to?._id ?? null) : (to?.name ?? null),
      collection: to,
      revert: from ? { kind: 'move', record: rec._id, collection: from._id } : null,
    });
    if (!observed) emit(w, actor, { type: 'record_moved', record: rec._id, actor: actor.user._id, depth: actor.depth });
  }
  if (patch.position !== undefined && patch.position !== rec.position) {
    const before = rec.position;
    rec.position = patch.position;
    w.activity.log(mod.workspace, actor, at, {
      ...base,
      action: 'record_reordered',
      message: `moved "${displayName(rec.name)}" to position ${String(rec.position)}`,
      targetName: displayName(rec.name),
      before: typeof before === 'number' ? before : null,
      after: typeof rec.position === 'number' ? rec.position : null,
      collection: collectionRef(),
    });
  }
  if (patch.isCompleted !== undefined && patch.isCompleted !== rec.isCompleted) {
    rec.isCompleted = patch.isCompleted;
    w.activity.log(mod.workspace, actor, at, {
      ...base,
      action: rec.isCompleted ? 'record_completed' : 'record_uncompleted',
      message: `${rec.isCompleted ? 'completed' : 'reopened'} "${displayName(rec.name)}"`,
      targetName: displayName(rec.name),
      before: !rec.isCompleted,
      after: rec.isCompleted,
      collection: collectionRef(),
      revert: { kind: 'completion', record: rec._id, isCompleted: !rec.isCompleted },
    });
    emit(w, actor, {
      type: rec.isCompleted ? 'record_completed' : 'record_uncompleted',
      record: rec._id,
      actor: actor.user._id,
      depth: actor.depth,
    });
  }
  if (patch.isArchived !== undefined && patch.isArchived !== rec.isArchived) {
    rec.isArchived = patch.isArchived;
    w.activity.log(mod.workspace, actor, at, {
      ...base,
      action: rec.isArchived ? 'record_archived' : 'record_restored',
      message: `${rec.isArchived ? 'archived' : 'restored'} "${displayName(rec.name)}"`,
      targetName: displayName(rec.name),
      before: !rec.isArchived,
      after: rec.isArchived,
      collection: collectionRef(),
      revert: { kind: 'archive', record: rec._id, isArchived: !rec.isArchived },
    });
    if (rec.isArchived && !observed) {
      emit(w, actor, { type: 'record_archived', record: rec._id, actor: actor.user._id, depth: actor.depth });
    }
  }
  rec.updatedAt = at;
  touchModule(w, actor, mod, at);
}

/** DELETE /records/{id}: spec deletes (sub-records archived); observed archives (soft delete). */
export function deleteRecord(w: World, actor: Actor, mod: ModuleDoc, rec: RecordDoc): number {
  const at = w.state.clock.stamp();
  let archived = 0;
  for (const sub of w.state.liveSubRecords(rec._id)) {
    sub.isArchived = true;
    sub.updatedAt = at;
    archived += 1;
  }
  const observed = w.rules.observed;
  if (observed) {
    rec.isArchived = true;
    rec.updatedAt = at;
  } else {
    purgeRecord(w, rec, at);
  }
  touchModule(w, actor, mod, at);
  w.activity.log(mod.workspace, actor, at, {
    action: 'record_deleted',
    message: `deleted "${displayName(rec.name)}"`,
    targetName: displayName(rec.name),
    before: displayName(rec.name),
    after: observed ? null : { archivedSubRecords: archived },
    module: mod,
    collection: w.state.collections.get(rec.collectionName) ?? null,
    record: rec,
    revert: observed ? { kind: 'archive', record: rec._id, isArchived: false } : null,
  });
  if (observed) emit(w, actor, { type: 'record_archived', record: rec._id, actor: actor.user._id, depth: actor.depth });
  return archived;
}

/** Hard removal of a record with its cells and amendments (spec cascades). Sub-records untouched. */
export function purgeRecord(w: World, rec: RecordDoc, at: string): void {
  const s = w.state;
  s.markDeleted(rec, at);
  s.unindexRecord(rec);
  const cells = s.valuesByRecord.get(rec._id);
  if (cells) {
    for (const id of cells.values()) {
      const v = s.values.get(id);
      if (v && !v.isDeleted) {
        s.markDeleted(v, at);
        s.valuesByColumn.remove(v.column, v._id);
      }
    }
    s.valuesByRecord.delete(rec._id);
  }
  for (const id of [...s.amendmentsByRecord.get(rec._id)]) {
    const a = s.amendments.get(id);
    if (a && !a.isDeleted) s.markDeleted(a, at);
    if (a) s.unindexAmendment(a);
  }
}

export function setCell(
  w: World,
  actor: Actor,
  mod: ModuleDoc,
  rec: RecordDoc,
  col: ColumnDoc,
  value: Json,
  opts: { fires?: boolean } = {},
): { doc: ValueDoc; created: boolean } {
  const at = w.state.clock.stamp();
  const existing = w.state.valueOf(rec._id, col._id);
  const before: Json | null = existing ? existing.value : null;
  let doc: ValueDoc;
  if (existing) {
    existing.value = value;
    existing.updatedAt = at;
    doc = existing;
  } else {
    doc = {
      _id: w.state.ids.id(),
      record: rec._id,
      column: col._id,
      module: mod._id,
      workspace: mod.workspace,
      collectionName: rec.collectionName,
      value,
      createdBy: actor.user._id,
      createdAt: at,
      updatedAt: at,
      isDeleted: false,
      deletedAt: null,
    };
    w.state.addValue(doc);
  }
  // Observed: a cell write leaves the record's updatedAt alone.
  if (!w.rules.observed) rec.updatedAt = at;
  touchModule(w, actor, mod, at);
  w.activity.log(mod.workspace, actor, at, {
    action: 'cell_updated',
    message: `changed ${col.name} of "${displayName(rec.name)}"`,
    targetName: displayName(rec.name),
    before,
    after: value,
    module: mod,
    collection: w.state.collections.get(rec.collectionName) ?? null,
    record: rec,
    column: col,
    revert: { kind: 'cell', record: rec._id, column: col._id, value: before },
  });
  if (col.type === 'person' && !w.rules.observed) notifyAssignments(w, actor, mod, rec, col, before, value, at);
  if (opts.fires !== false) {
    emit(w, actor, { type: 'column_changed', record: rec._id, column: col._id, value, actor: actor.user._id, depth: actor.depth });
  }
  return { doc, created: !existing };
}

export function clearCell(w: World, actor: Actor, mod: ModuleDoc, v: ValueDoc): void {
  const at = w.state.clock.stamp();
  const rec = w.state.records.get(v.record);
  const col = w.state.columns.get(v.column);
  w.state.markDeleted(v, at);
  w.state.unindexValue(v);
  if (rec && !w.rules.observed) rec.updatedAt = at;
  touchModule(w, actor, mod, at);
  w.activity.log(mod.workspace, actor, at, {
    action: 'cell_updated',
    message: `cleared ${col?.name ?? 'a cell'} of "${displayName(rec?.name)}"`,
    targetName: displayName(rec?.name),
    before: v.value,
    after: null,
    module: mod,
    collection: rec ? w.state.collections.get(rec.collectionName) ?? null : null,
    record: rec ?? null,
    column: col ?? null,
    revert: { kind: 'cell', record: v.record, column: v.column, value: v.value },
  });
  if (!w.rules.observed && rec) {
    emit(w, actor, { type: 'column_changed', record: rec._id, column: v.column, value: null, actor: actor.user._id, depth: actor.depth });
  }
}

function parseIds(value: Json | null): string[] {
  if (Array.isArray(value)) return value.filter((x): x is string => typeof x === 'string');
  if (typeof value !== 'string' || value === '') return [];
  try {
    return parseIds(JSON.parse(value) as Json);
  } catch {
    return [];
  }
}

function notifyAssignments(
  w: World,
  actor: Actor,
  mod: ModuleDoc,
  rec: RecordDoc,
  col: ColumnDoc,
  before: Json | null,
  after: Json,
  at: string,
): void {
  const had = new Set(parseIds(before));
  for (const userId of parseIds(after)) {
    if (had.has(userId) || userId === actor.user._id || !w.state.users.has(userId)) continue;
    notify(w, at, {
      user: userId,
      type: 'assignment',
      title: 'You were assigned',
      message: `${actor.user.firstName} assigned you to "${displayName(rec.name)}" (${col.name})`,
      workspace: mod.workspace,
      module: mod._id,
      record: rec._id,
    });
  }
}

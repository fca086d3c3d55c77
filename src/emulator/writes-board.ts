// Board-level structure writes: collections and columns (both scopes), with the dialects' delete
// semantics (spec cascades to records and cells; observed removes only the document itself).

import type { CollectionDoc, ColumnDoc, Json, ModuleDoc, StatusOptionDoc } from './docs.js';
import { purgeRecord } from './writes-records.js';
import { touchModule } from './touch.js';
import type { World } from './world.js';
import type { Actor } from './actor.js';

// ---- collections ---------------------------------------------------------------------------

export interface CollectionInput {
  name: string;
  color?: string;
  position?: number;
  isCollapsed?: boolean;
}

export function createCollection(w: World, actor: Actor, mod: ModuleDoc, input: CollectionInput): CollectionDoc {
  const at = w.state.clock.stamp();
  const existing = w.state.moduleCollections(mod._id);
  // Spec: omitted position appends; observed: it defaults to 0.
  const append = existing.length ? Math.max(...existing.map((c) => c.position)) + 1 : 0;
  const doc: CollectionDoc = {
    _id: w.state.ids.id(),
    module: mod._id,
    workspace: mod.workspace,
    name: input.name,
    color: input.color ?? '#64748B',
    position: input.position ?? (w.rules.observed ? 0 : append),
    isCollapsed: input.isCollapsed ?? false,
    createdBy: actor.user._id,
    createdAt: at,
    updatedAt: at,
    isDeleted: false,
    deletedAt: null,
  };
  w.state.addCollection(doc);
  touchModule(w, actor, mod, at);
  w.activity.log(mod.workspace, actor, at, {
    action: 'collection_created',
    message: `created group "${doc.name}"`,
    targetName: doc.name,
    module: mod,
    collection: doc,
  });
  return doc;
}

export function updateCollection(w: World, actor: Actor, mod: ModuleDoc, c: CollectionDoc, patch: Partial<CollectionInput>): void {
  const at = w.state.clock.stamp();
  const before = c.name;
  const renamed = patch.name !== undefined && patch.name !== c.name;
  if (patch.name !== undefined) c.name = patch.name;
  if (patch.color !== undefined) c.color = patch.color;
  if (patch.position !== undefined) c.position = patch.position;
  if (patch.isCollapsed !== undefined) c.isCollapsed = patch.isCollapsed;
  c.updatedAt = at;
  touchModule(w, actor, mod, at);
  w.activity.log(mod.workspace, actor, at, {
    action: 'collection_updated',
    message: renamed ? `renamed group "${before}" to "${c.name}"` : `updated group "${c.name}"`,
    targetName: c.name,
    before,
    after: c.name,
    module: mod,
    collection: c,
    // Colour, position and collapse changes are not logged by the deployed server.
    silentInObserved: !renamed,
  });
}

export function deleteCollection(w: World, actor: Actor, mod: ModuleDoc, c: CollectionDoc): void {
  const at = w.state.clock.stamp();
  if (!w.rules.observed) {
    for (const id of [...w.state.recordsByCollection.get(c._id)]) {
      const r = w.state.records.get(id);
      if (!r || r.isDeleted) continue;
      for (const subId of [...w.state.subRecordsByParent.get(r._id)]) {
        const sub = w.state.records.get(subId);
        if (sub && !sub.isDeleted) purgeRecord(w, sub, at);
      }
      purgeRecord(w, r, at);
    }
  }
  w.state.markDeleted(c, at);
  w.state.unindexCollection(c);
  touchModule(w, actor, mod, at);
  w.activity.log(mod.workspace, actor, at, {
    action: 'collection_deleted',
    message: `deleted group "${c.name}"`,
    targetName: c.name,
    before: c.name,
    module: mod,
    collection: c,
    dropIdInObserved: 'collection',
  });
}

// ---- columns -------------------------------------------------------------------------------

export interface ColumnInput {
  name: string;
  type: string;
  scope: 'record' | 'subrecord';
  position?: number;
  width?: number;
  isRequired?: boolean;
  isHidden?: boolean;
  statusOptions?: StatusOptionDoc[];
  settings?: { [key: string]: Json };
}

export function createColumn(w: World, actor: Actor, mod: ModuleDoc, input: ColumnInput, silentInObserved = false): ColumnDoc {
  const at = w.state.clock.stamp();
  const same = w.state.moduleColumns(mod._id, input.scope);
  const append = same.length ? Math.max(...same.map((c) => c.position)) + 1 : 0;
  const doc: ColumnDoc = {
    _id: w.state.ids.id(),
    module: mod._id,
    workspace: mod.workspace,
    scope: input.scope,
    name: input.name,
    type: input.type,
    position: input.position ?? (w.rules.observed ? 0 : append),
    width: input.width ?? 180,
    isRequired: input.isRequired ?? false,
    isHidden: input.isHidden ?? false,
    statusOptions: withOptionIds(w, input.statusOptions ?? []),
    settings: input.settings ?? {},
    createdBy: actor.user._id,
    createdAt: at,
    updatedAt: at,
    isDeleted: false,
    deletedAt: null,
  };
  w.state.addColumn(doc);
  touchModule(w, actor, mod, at);
  w.activity.log(mod.workspace, actor, at, {
    action: 'column_created',
    message: `added column "${doc.name}"`,
    targetName: doc.name,
    after: doc.type,
    module: mod,
    column: doc,
    silentInObserved,
  });
  return doc;
}

/** Observed: every status option is a Mongoose sub-document with its own `_id`. */
function withOptionIds(w: World, options: StatusOptionDoc[]): StatusOptionDoc[] {
  if (!w.rules.observed) return options;
  return options.map((o) => ({ ...o, _id: o._id ?? w.state.ids.id() }));
}

export function updateColumn(w: World, actor: Actor, mod: ModuleDoc, c: ColumnDoc, patch: Partial<ColumnInput>): void {
  const at = w.state.clock.stamp();
  const before = c.name;
  const renamed = patch.name !== undefined && patch.name !== c.name;
  if (patch.name !== undefined) c.name = patch.name;
  if (patch.width !== undefined) c.width = patch.width;
  if (patch.position !== undefined) c.position = patch.position;
  if (patch.statusOptions !== undefined) c.statusOptions = withOptionIds(w, patch.statusOptions);
  if (patch.isRequired !== undefined) c.isRequired = patch.isRequired;
  if (patch.isHidden !== undefined) c.isHidden = patch.isHidden;
  if (patch.settings !== undefined) c.settings = patch.settings;
  c.updatedAt = at;
  touchModule(w, actor, mod, at);
  w.activity.log(mod.workspace, actor, at, {
    action: 'column_updated',
    message: renamed ? `renamed column "${before}" to "${c.name}"` : `updated column "${c.name}"`,
    targetName: c.name,
    before,
    after: c.name,
    module: mod,
    column: c,
    // Width, position, options and settings changes are not logged by the deployed server.
    silentInObserved: !renamed,
  });
}

export function deleteColumn(w: World, actor: Actor, mod: ModuleDoc, c: ColumnDoc): void {
  const at = w.state.clock.stamp();
  if (!w.rules.observed) {
    for (const id of [...w.state.valuesByColumn.get(c._id)]) {
      const v = w.state.values.get(id);
      if (v && !v.isDeleted) {
        w.state.markDeleted(v, at);
        w.state.unindexValue(v);
      }
    }
  }
  w.state.markDeleted(c, at);
  w.state.unindexColumn(c);
  touchModule(w, actor, mod, at);
  w.activity.log(mod.workspace, actor, at, {
    action: 'column_deleted',
    message: `deleted column "${c.name}"`,
    targetName: c.name,
    before: c.name,
    module: mod,
    column: c,
    dropIdInObserved: 'column',
  });
}

/** The first sub-record of a module brings Owner / Status / Due date along. */
export function seedSubrecordColumns(w: World, actor: Actor, mod: ModuleDoc, statusOptions: StatusOptionDoc[]): void {
  if (w.state.moduleColumns(mod._id, 'subrecord').length > 0) return;
  const seeds: Array<[string, string]> = [
    ['Owner', 'person'],
    ['Status', 'status'],
    ['Due date', 'date'],
  ];
  seeds.forEach(([name, type], position) => {
    createColumn(
      w,
      actor,
      mod,
      { name, type, scope: 'subrecord', position, statusOptions: type === 'status' ? statusOptions.map((o) => ({ ...o })) : [] },
      true,
    );
  });
}


// A module as people see it, read live through the HTTP API into one canonical, ordered value, and a
// comparison of two such reads modulo ids — for restore tests (module, rollback, workspace): read
// before, do the thing, read after, compare. This file reads; module-compare.ts compares.
//
//   const before = await readModule(emu, moduleId);
//   ... delete, restore ...
//   const after = await readModule(emu, newModuleId);
//   const diffs = compareModules(before, after, invertIdMap(idMapOf(db, runId)));   // module-compare.ts
//   const { undeclared, unfounded } = checkDeclared(diffs, result.notRestored, before);
//
// Every list keeps the order its endpoint returns (collections, columns per scope, records per
// collection, sub-records per parent, amendments per record, module automations); the comparison
// checks that order as well as every field people see. Not compared: ids (translated), timestamps,
// authors/createdBy, automation run statistics, derived counts (subRecordCount, amendmentCount:
// the sub-records and amendments themselves are compared).
//
// Archived records and sub-records are in no list: their ids and own fields (name, position...)
// come from the emulator's documents (the API has no single-record GET), their cells, amendments and
// sub-records are read through the API by id, as a client would.

import type { RunningEmulator } from '../../src/emulator/types.js';
import { asTarget, type ServiceTarget } from './service-target.js';

/** One object of a list: its id, a readable label, and the fields people see. */
export interface Item {
  id: string;
  label: string;
  fields: Record<string, unknown>;
}

export interface CellItem {
  /** The record value's id (what a restore's notRestored names). */
  id: string;
  /** The column's id; null when the service answers `column: null` (its column was deleted). */
  column: string | null;
  label: string;
  value: unknown;
}

export interface ModuleView {
  moduleId: string;
  workspaceId: string;
  module: Record<string, unknown>;
  /** In list order. */
  collections: Item[];
  /** Per scope, in list order. */
  columns: { record: Item[]; subrecord: Item[] };
  /** Live top-level records per collection id, in list order. */
  records: Record<string, Item[]>;
  /** Live sub-records per parent id (live or archived parent), in list order. */
  subRecords: Record<string, Item[]>;
  /** Archived records and sub-records that can still be reached by id (no order: no list shows them). */
  archived: Item[];
  /** Cells per record id, sorted by column. */
  cells: Record<string, CellItem[]>;
  /** Amendments per record id, in list order (oldest first). */
  amendments: Record<string, Item[]>;
  /** Module-scope automations, in list order. */
  automations: Item[];
  /** User ids holding an explicit grant on the module, sorted. */
  grants: string[];
}

export interface Difference {
  /** What kind of object differs: module, collection, column, record, cell, amendment, automation, grant. */
  entity: string;
  /** Its id (an old id: the after-read is translated back); for an order difference, the container's. */
  id: string;
  /**
   * Ids whose declaration in `notRestored` may explain this difference: the object itself first,
   * then its ancestors (record, parent record, collection, column...). An ancestor explains only
   * the object's absence or presence (field '(exists)'), never a field of it.
   */
  covers: string[];
  /** Readable path of the object. */
  path: string;
  field: string;
  before: unknown;
  after: unknown;
}

export interface ReadOptions {
  /** API key to read with (default: the emulator's owner key). */
  key?: string;
}

async function get(emu: ServiceTarget, path: string, key: string | undefined): Promise<any> {
  const res = await emu.call('GET', path, undefined, key);
  if (res.status !== 200) throw new Error(`readModule: GET ${path} answered ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
  return res.body;
}

/** A value as at most `n` characters of text, for labels. */
export const short = (s: unknown, n = 40): string => {
  const t = typeof s === 'string' ? s : JSON.stringify(s);
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
};

function recordFields(r: Record<string, any>): Record<string, unknown> {
  return {
    name: r.name ?? null,
    position: r.position ?? null,
    isCompleted: r.isCompleted ?? false,
    isArchived: r.isArchived ?? false,
    collectionName: r.collectionName ?? null,
    parentRecord: r.parentRecord ?? null,
  };
}

/** Reads module `moduleId` live into its canonical, ordered form. */
export async function readModule(service: RunningEmulator | ServiceTarget, moduleId: string, opts: ReadOptions = {}): Promise<ModuleView> {
  const key = opts.key;
  const emu = asTarget(service);
  const dump = await emu.dump();
  const doc = dump.modules.find((m) => m._id === moduleId);
  if (!doc) throw new Error(`readModule: no module ${moduleId}`);
  const workspaceId = String(doc.workspace);
  const listed = ((await get(emu, `/modules/${workspaceId}`, key)).modules as any[]).find((m) => m._id === moduleId);
  if (!listed) throw new Error(`readModule: module ${moduleId} is not listed in workspace ${workspaceId}`);
  const module = {
    name: listed.name,
    description: listed.description ?? '',
    icon: listed.icon ?? '',
    color: listed.color ?? '',
    visibility: listed.visibility ?? null,
    tags: listed.tags ?? [],
  };

  const [colls, recordCols, subCols, autos] = await Promise.all([
    get(emu, `/collections/${moduleId}`, key),
    get(emu, `/columns/${moduleId}`, key),
    get(emu, `/columns/${moduleId}?scope=subrecord`, key),
    get(emu, `/automations/${moduleId}`, key),
  ]);
  const collections: Item[] = (colls.collections as any[]).map((c) => ({
    id: c._id,
    label: `collection "${short(c.name)}"`,
    fields: { name: c.name, color: c.color ?? null, position: c.position ?? null, isCollapsed: c.isCollapsed ?? false },
  }));
  const collName = new Map(collections.map((c) => [c.id, String(c.fields.name)]));
  const column = (scope: 'record' | 'subrecord') => (c: any): Item => ({
    id: c._id,
    label: `${scope === 'record' ? 'column' : 'sub-record column'} "${short(c.name)}"`,
    fields: {
      name: c.name,
      type: c.type,
      position: c.position ?? null,
      width: c.width ?? null,
      isRequired: c.isRequired ?? false,
      isHidden: c.isHidden ?? false,
      // an option's `_id` is the service's own (observed: a Mongoose sub-document id nothing can set back)
      statusOptions: ((c.statusOptions ?? []) as Array<{ label: unknown; color: unknown }>).map((o) => ({ label: o.label, color: o.color })),
      settings: c.settings ?? {},
    },
  });
  const columns = { record: (recordCols.columns as any[]).map(column('record')), subrecord: (subCols.columns as any[]).map(column('subrecord')) };
  const colName = new Map([...columns.record, ...columns.subrecord].map((c) => [c.id, String(c.fields.name)]));

  // Top-level records: listed per collection; archived ones (in a live collection) by id.
  const records: Record<string, Item[]> = {};
  const recName = new Map<string, string>();
  const recItem = (r: Record<string, any>, archived: boolean): Item => {
    const parent = r.parentRecord ? recName.get(r.parentRecord) ?? r.parentRecord : null;
    recName.set(r._id, short(r.name));
    const kind = `${archived ? 'archived ' : ''}${r.parentRecord ? 'sub-record' : 'record'}`;
    return { id: r._id, label: `${kind} "${short(r.name)}"${parent ? ` of "${parent}"` : ` in "${collName.get(r.collectionName) ?? r.collectionName}"`}`, fields: recordFields(r) };
  };
  const lists = await Promise.all(collections.map((c) => get(emu, `/records/${c.id}`, key)));
  collections.forEach((c, i) => (records[c.id] = (lists[i].records as any[]).map((r) => recItem(r, false))));
  const mine = dump.records.filter((r) => r.module === moduleId && !r.isDeleted);
  const archived: Item[] = mine
    .filter((r) => r.isArchived && !r.parentRecord && collName.has(r.collectionName))
    .map((r) => recItem(r, true));
  const tops = [...Object.values(records).flat(), ...archived].map((r) => r.id);
  const topSet = new Set(tops);

  // Sub-records: listed per parent; archived ones (of a reachable parent) by id.
  const subRecords: Record<string, Item[]> = {};
  const subLists = await Promise.all(tops.map((id) => get(emu, `/records/${id}/sub-records`, key)));
  tops.forEach((id, i) => {
    const subs = (subLists[i].records as any[]).map((r) => recItem(r, false));
    if (subs.length) subRecords[id] = subs;
  });
  archived.push(...mine.filter((r) => r.isArchived && r.parentRecord && topSet.has(r.parentRecord)).map((r) => recItem(r, true)));
  archived.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const reachable = [...tops, ...Object.values(subRecords).flat().map((r) => r.id), ...archived.filter((r) => r.fields.parentRecord).map((r) => r.id)];

  // Cells and threads of every reachable record.
  const cells: Record<string, CellItem[]> = {};
  const amendments: Record<string, Item[]> = {};
  await Promise.all(
    reachable.map(async (rid) => {
      const [vals, notes] = await Promise.all([get(emu, `/record-values/${rid}`, key), get(emu, `/amendments/${rid}`, key)]);
      const cs: CellItem[] = (vals.values as any[]).map((v) => {
        const col: string | null = v.column && typeof v.column === 'object' ? v.column._id : typeof v.column === 'string' ? v.column : null;
        return { id: v._id, column: col, label: `cell "${recName.get(rid) ?? rid}" · "${col ? (colName.get(col) ?? col) : '(deleted column)'}"`, value: v.value ?? null };
      });
      cs.sort((a, b) => (cellKey(a) < cellKey(b) ? -1 : 1));
      if (cs.length) cells[rid] = cs;
      const ns: Item[] = (notes.amendments as any[]).map((a) => ({
        id: a._id,
        label: `${a.parentComment ? 'reply' : 'note'} "${short(a.message || '(tombstone)', 30)}" on "${recName.get(rid) ?? rid}"`,
        fields: { message: a.message ?? '', parentComment: a.parentComment ?? null, isDeleted: a.isDeleted ?? false, edited: a.edited ?? false },
      }));
      if (ns.length) amendments[rid] = ns;
    }),
  );

  const automations: Item[] = (autos.automations as any[]).map((a) => ({
    id: a._id,
    label: `automation "${short(a.name)}"`,
    fields: { name: a.name, scope: a.scope ?? 'module', trigger: a.trigger, conditions: a.conditions, match: a.match, actions: a.actions, isActive: a.isActive },
  }));

  const members = (await get(emu, `/workspace-members/${workspaceId}`, key)).members as any[];
  const access = await Promise.all(members.map((m) => get(emu, `/module-access/${workspaceId}/${m.user._id}`, key)));
  const grants = members
    .filter((_, i) => (access[i].modules as any[]).some((x) => x._id === moduleId && x.granted))
    .map((m) => String(m.user._id))
    .sort();

  return { moduleId, workspaceId, module, collections, columns, records, subRecords, archived, cells, amendments, automations, grants };
}

/** Where a cell sits in its record's list: its column, or its own id once the column is gone. */
export function cellKey(c: CellItem): string {
  return c.column ?? `(deleted column)#${c.id}`;
}

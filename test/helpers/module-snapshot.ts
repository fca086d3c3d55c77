// A module as people see it, read live through the HTTP API into one canonical, ordered value, and a
// comparison of two such reads modulo ids — for restore tests (module, rollback, workspace): read
// before, do the thing, read after, compare.
//
//   const before = await readModule(emu, moduleId);
//   ... delete, restore ...
//   const after = await readModule(emu, newModuleId);
//   const diffs = compareModules(before, after, invertIdMap(idMapOf(db, runId)));
//   const { undeclared, unfounded } = checkDeclared(diffs, result.notRestored, before);
//
// Every list keeps the order its endpoint returns (collections, columns per scope, records per
// collection, sub-records per parent, amendments per record, module automations); the comparison
// checks that order as well as every field people see. Not compared: ids (translated), timestamps,
// authors/createdBy, automation run statistics, derived counts (subRecordCount, amendmentCount:
// the sub-records and notes themselves are compared).
//
// Archived records and sub-records are in no list: their ids and own fields (name, position...)
// come from the emulator's documents (the API has no single-record GET), their cells, notes and
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

const short = (s: unknown, n = 40): string => {
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

function cellKey(c: CellItem): string {
  return c.column ?? `(deleted column)#${c.id}`;
}

const ID = /\b[0-9a-f]{24}\b/g;

/** Replaces every id `map` knows, anywhere in `value` (keys, fields, ids inside JSON-encoded cells). */
export function translateIds<T>(value: T, map: ReadonlyMap<string, string>): T {
  if (!map.size) return value;
  return JSON.parse(JSON.stringify(value).replace(ID, (id) => map.get(id) ?? id)) as T;
}

export function invertIdMap(oldToNew: ReadonlyMap<string, string>): Map<string, string> {
  return new Map([...oldToNew].map(([o, n]) => [n, o]));
}

/** JSON with sorted object keys: key order is nothing people see. */
function canon(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1))) : x,
  );
}

interface Placed {
  item: Item;
  /** The ordered list holding it ('' for none), and that list's owner id. */
  list: string;
  covers: string[];
}

/** Every object of one kind, by id, with the list it sits in. */
function family(view: ModuleView, entity: string): Map<string, Placed> {
  const out = new Map<string, Placed>();
  const put = (item: Item, list: string, covers: string[]): void => void out.set(item.id, { item, list, covers: [item.id, ...covers] });
  const recCovers = (id: string): string[] => {
    const f = recordsById(view).get(id)?.fields;
    if (!f) return [];
    return [f.collectionName as string, ...(f.parentRecord ? [f.parentRecord as string, ...recCovers(f.parentRecord as string)] : [])].filter(Boolean);
  };
  switch (entity) {
    case 'collection':
      for (const c of view.collections) put(c, `collections of the module|${view.moduleId}`, [view.moduleId]);
      break;
    case 'column':
      for (const scope of ['record', 'subrecord'] as const) {
        for (const c of view.columns[scope]) put({ ...c, fields: { ...c.fields, scope } }, `${scope} columns|${view.moduleId}`, [view.moduleId]);
      }
      break;
    case 'record':
      for (const [coll, list] of Object.entries(view.records)) for (const r of list) put(r, `records of ${labelOf(view, coll)}|${coll}`, recCovers(r.id));
      for (const [parent, list] of Object.entries(view.subRecords)) for (const r of list) put(r, `sub-records of ${labelOf(view, parent)}|${parent}`, recCovers(r.id));
      for (const r of view.archived) put(r, '', recCovers(r.id));
      break;
    case 'amendment':
      for (const [rec, list] of Object.entries(view.amendments)) {
        for (const a of list) put(a, `notes on ${labelOf(view, rec)}|${rec}`, [...(a.fields.parentComment ? [a.fields.parentComment as string] : []), rec, ...recCovers(rec)]);
      }
      break;
    case 'cell':
      for (const [rec, list] of Object.entries(view.cells)) {
        for (const c of list) {
          out.set(`${rec}/${cellKey(c)}`, { item: { id: c.id, label: c.label, fields: { value: c.value } }, list: '', covers: [c.id, rec, ...recCovers(rec), ...(c.column ? [c.column] : [])] });
        }
      }
      break;
    case 'automation':
      for (const a of view.automations) put(a, `automations of the module|${view.moduleId}`, [view.moduleId]);
      break;
    case 'grant':
      for (const u of view.grants) put({ id: u, label: `grant to user ${u}`, fields: {} }, '', [view.moduleId]);
      break;
  }
  return out;
}

const byIdCache = new WeakMap<ModuleView, Map<string, Item>>();
function recordsById(view: ModuleView): Map<string, Item> {
  let m = byIdCache.get(view);
  if (!m) {
    m = new Map([...Object.values(view.records).flat(), ...Object.values(view.subRecords).flat(), ...view.archived].map((r) => [r.id, r]));
    byIdCache.set(view, m);
  }
  return m;
}

function labelOf(view: ModuleView, id: string): string {
  return recordsById(view).get(id)?.label ?? view.collections.find((c) => c.id === id)?.label ?? id;
}

export interface CompareOptions {
  /** `${oldId}.${field}` pairs not to compare (e.g. what the backup cannot know). */
  ignore?: ReadonlySet<string>;
}

export const ENTITIES = ['collection', 'column', 'record', 'cell', 'amendment', 'automation', 'grant'] as const;

/**
 * Differences between two reads, modulo ids: `after` is translated back through `newToOld` (ids it
 * does not know — other modules, users — stay as they are). Objects missing or extra, fields that
 * differ, and lists whose common members come in another order.
 */
export function compareModules(before: ModuleView, after: ModuleView, newToOld: ReadonlyMap<string, string>, opts: CompareOptions = {}): Difference[] {
  const b = before;
  const a = translateIds(after, newToOld);
  const out: Difference[] = [];
  const ignore = opts.ignore ?? new Set<string>();

  if (a.moduleId !== b.moduleId) out.push({ entity: 'module', id: b.moduleId, covers: [b.moduleId], path: 'module', field: 'id', before: b.moduleId, after: `${a.moduleId} (not mapped back)` });
  for (const f of new Set([...Object.keys(b.module), ...Object.keys(a.module)])) {
    if (canon(b.module[f]) !== canon(a.module[f])) out.push({ entity: 'module', id: b.moduleId, covers: [b.moduleId], path: `module "${short(b.module.name)}"`, field: f, before: b.module[f], after: a.module[f] });
  }

  for (const entity of ENTITIES) {
    const fb = family(b, entity);
    const fa = family(a, entity);
    for (const [k, x] of fb) {
      const y = fa.get(k);
      if (!y) {
        out.push({ entity, id: x.item.id, covers: x.covers, path: x.item.label, field: '(exists)', before: 'present', after: 'missing' });
        continue;
      }
      for (const f of new Set([...Object.keys(x.item.fields), ...Object.keys(y.item.fields)])) {
        if (ignore.has(`${x.item.id}.${f}`)) continue;
        if (canon(x.item.fields[f]) !== canon(y.item.fields[f])) out.push({ entity, id: x.item.id, covers: x.covers, path: x.item.label, field: f, before: x.item.fields[f], after: y.item.fields[f] });
      }
    }
    for (const [k, y] of fa) {
      if (!fb.has(k)) out.push({ entity, id: y.item.id, covers: y.covers, path: y.item.label, field: '(exists)', before: 'absent', after: 'present (extra)' });
    }
    // Order: per list, the members present in that same list on both sides.
    const lists = new Map<string, { b: string[]; a: string[] }>();
    for (const [k, x] of fb) if (x.list && fa.get(k)?.list === x.list) lists.set(x.list, { b: [...(lists.get(x.list)?.b ?? []), k], a: [] });
    for (const [k, y] of fa) if (y.list && lists.has(y.list) && fb.get(k)?.list === y.list) lists.get(y.list)!.a.push(k);
    for (const [list, seq] of lists) {
      if (canon(seq.b) === canon(seq.a)) continue;
      const [what, owner] = list.split('|') as [string, string];
      // "name"@position, so that ties show
      const name = (k: string): string => {
        const { label, fields } = fb.get(k)!.item;
        return `${short(label.replace(/^[^"]*"/, '"').replace(/" (in|of) ".*$/, '"'), 30)}${fields.position !== undefined ? `@${JSON.stringify(fields.position)}` : ''}`;
      };
      out.push({ entity: `${entity} order`, id: owner, covers: [owner], path: what, field: 'order', before: seq.b.map(name), after: seq.a.map(name) });
    }
  }
  return out;
}

/** Every id the view holds (objects, cells, grantees, the module). */
export function idsOf(view: ModuleView): Set<string> {
  const out = new Set<string>([view.moduleId, ...view.grants]);
  for (const e of ENTITIES) for (const p of family(view, e).values()) out.add(p.item.id);
  return out;
}

/** The before-read's item with this id (any kind), for judging a declared item. */
export function itemOf(view: ModuleView, id: string): Item | CellItem | undefined {
  for (const e of ENTITIES) for (const p of family(view, e).values()) if (p.item.id === id) return p.item;
  return undefined;
}

export interface Declared {
  entity: string;
  id: string;
  label?: string;
  reason?: string;
  value?: unknown;
}

/**
 * Matches differences against what a restore declared it could not restore:
 *  - undeclared: differences no declared id explains (the object itself; for a missing or extra
 *    object also an ancestor: a record not restored takes its cells and notes along);
 *  - unfounded: declared items that the before-read holds but that came back identical, unless
 *    `unrestorable(d)` says why nothing could be done about them (e.g. a dangling reference kept).
 */
export function checkDeclared(
  diffs: Difference[],
  declared: readonly Declared[],
  before: ModuleView,
  unrestorable: (d: Declared) => boolean = () => false,
): { undeclared: Difference[]; unfounded: Declared[] } {
  const ids = new Set(declared.map((d) => d.id));
  const explainers = (d: Difference): string[] => (d.field === '(exists)' ? d.covers : d.covers.slice(0, 1));
  const covered = new Set(diffs.flatMap(explainers));
  const held = idsOf(before);
  return {
    undeclared: diffs.filter((d) => !explainers(d).some((id) => ids.has(id))),
    unfounded: declared.filter((d) => held.has(d.id) && !covered.has(d.id) && !unrestorable(d)),
  };
}

const show = (v: unknown): string => {
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return `[${v.join(', ')}]`;
  const s = JSON.stringify(v);
  return s === undefined ? 'undefined' : s.length > 300 ? `${s.slice(0, 299)}…` : s;
};

/** One line per difference: entity path, field, before → after. */
export function formatDifferences(diffs: readonly Difference[]): string[] {
  return diffs.map((d) => `${d.path} [${d.entity} ${d.id}] ${d.field}: ${show(d.before)} → ${show(d.after)}`);
}

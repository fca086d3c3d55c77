// The comparison of two module reads (module-snapshot.ts) modulo ids: every difference people would
// see, as entity path, field, before and after; which of them a restore declared (not restored,
// refused) and which it did not; and their one-line form for a failure message.

import { cellKey, short, type CellItem, type Difference, type Item, type ModuleView } from './module-snapshot.js';

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

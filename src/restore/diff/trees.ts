// Pure, field-by-field comparison of two module trees. Volatile fields (updatedAt, counts,
// presence, runCount, lastRunAt, lastError, graphData...) are never compared: only the normalised
// fields a user set are. Ids inside values (settings, automations, relation cells) are translated
// through the same a → b id map that pairs the objects, so a restored copy compares equal.

import type { Amendment, BoardRecord, Cell, Column } from '../../domain/entities.js';
import { matchByShape } from './match.js';
import { translateIds } from '../engine/remap.js';
import { threadOrder } from '../engine/sibling-order.js';
import type { ModuleTree } from '../engine/tree.js';

export type DiffEntity = 'module' | 'collection' | 'column' | 'record' | 'cell' | 'amendment' | 'automation' | 'grant' | 'member' | 'workspaceAutomation';

export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

export interface EntityDiff {
  entity: DiffEntity;
  change: 'added' | 'removed' | 'changed';
  /** The a-side id (b-side for 'added'). */
  id: string;
  /** What a reader recognises it by (names, not ids). */
  label: string;
  fields?: FieldChange[];
}

export interface ModuleDiff {
  moduleId: string;
  otherModuleId: string;
  name: string;
  entries: EntityDiff[];
  /** What could not be compared and why (e.g. archived records a live read cannot list). */
  notes: string[];
}

export interface DiffOptions {
  /** 'id': same ids on both sides (snapshot vs live, snapshot vs snapshot); 'shape': modulo ids. */
  matchBy: 'id' | 'shape';
  /** Known a → b ids (a restore journal); used before shape matching. */
  idMap?: ReadonlyMap<string, string>;
  /** b is a restored copy: authors and times of amendments are the restorer's, by design. */
  acrossRestore?: boolean;
  /** The attribution template a restore appended to amendment messages (stripped on b). */
  attribution?: string;
  /** b was read live, where archived records cannot be listed: skip those archived on a. */
  bHidesArchived?: boolean;
}

// canon and cellData live in the domain, with the one cell counting the tripwire shares
export { canon, cellData } from '../../domain/cell-change.js';
import { canon, cellData } from '../../domain/cell-change.js';

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The line a restore appends to an amendment, as a pattern of one whole paragraph (placeholders
 * match anything). */
export function attributionPattern(template: string): RegExp | null {
  if (!template) return null;
  const body = template
    .split(/(\{author\}|\{createdAt\})/)
    .map((part) => (part === '{author}' || part === '{createdAt}' ? '.*?' : escapeRe(part)))
    .join('');
  return new RegExp(`^${body}$`, 's');
}

/** Removes the attribution paragraph the last restore appended, and only that one: an amendment restored
 * before already carries an earlier restore's line, which is part of what the snapshot holds. */
export function stripAttribution(message: string, line: RegExp | null): string {
  if (!line) return message;
  const cut = message.lastIndexOf('\n\n');
  const tail = cut >= 0 ? message.slice(cut + 2) : message;
  if (!line.test(tail)) return message;
  return cut >= 0 ? message.slice(0, cut) : '';
}

function fieldsOf<T>(x: T, keys: (keyof T)[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [String(k), x[k] ?? null]));
}

function changes(a: Record<string, unknown>, b: Record<string, unknown>): FieldChange[] {
  const out: FieldChange[] = [];
  for (const k of Object.keys(a)) if (canon(a[k]) !== canon(b[k])) out.push({ field: k, before: a[k], after: b[k] });
  return out;
}

interface Side<T> {
  id: string;
  label: string;
  item: T;
}

function compareSets<T>(
  entity: DiffEntity,
  a: Side<T>[],
  b: Side<T>[],
  key: (s: Side<T>, side: 'a' | 'b') => string,
  fields: (x: T, side: 'a' | 'b') => Record<string, unknown>,
  out: EntityDiff[],
): void {
  const bByKey = new Map(b.map((s) => [key(s, 'b'), s]));
  const seen = new Set<string>();
  for (const s of a) {
    const k = key(s, 'a');
    const other = bByKey.get(k);
    if (!other) {
      out.push({ entity, change: 'removed', id: s.id, label: s.label });
      continue;
    }
    seen.add(k);
    const f = changes(fields(s.item, 'a'), fields(other.item, 'b'));
    if (f.length) out.push({ entity, change: 'changed', id: s.id, label: s.label, fields: f });
  }
  for (const s of b) if (!seen.has(key(s, 'b'))) out.push({ entity, change: 'added', id: s.id, label: s.label });
}


/** How the a side maps onto the b side, and what every comparison shares. */
interface Pairing {
  /** An a-side value with the ids inside it translated to b's. */
  t: (v: unknown) => unknown;
  /** An a-side id as b's. */
  tid: (id: string | null) => string | null;
  /** Records of a left out (archived, where b cannot list them), with all beneath them. */
  hidden: ReadonlySet<string>;
  /** Names for labels: the a side's (the snapshot's), b's only for what a lacks. */
  recName: ReadonlyMap<string, string>;
  colName: ReadonlyMap<string, string>;
  collName: ReadonlyMap<string, string>;
  entries: EntityDiff[];
}

function byId<T extends { id: string }>(list: T[], label: (x: T) => string): Side<T>[] {
  return list.map((x) => ({ id: x.id, label: label(x), item: x }));
}

/** The same object on both sides: a's id translated is b's. */
function idKey(p: Pairing): <T>(s: Side<T>, side: 'a' | 'b') => string {
  return (s, side) => (side === 'a' ? p.tid(s.id)! : s.id);
}

export function diffModuleTrees(a: ModuleTree, b: ModuleTree, opts: DiffOptions): ModuleDiff {
  const map: Map<string, string> = opts.matchBy === 'shape' ? matchByShape(a, b, opts.idMap) : new Map(opts.idMap ?? []);
  const tid = (id: string | null): string | null => (id === null ? null : (map.get(id) ?? id));
  const notes: string[] = [];
  const p: Pairing = {
    t: (v) => translateIds(v, map),
    tid,
    hidden: opts.bHidesArchived ? archivedUnlisted(a, b, tid, notes) : new Set(),
    colName: new Map([...b.columns, ...a.columns].map((c) => [c.id, c.name])),
    recName: new Map([...b.records, ...a.records].map((r) => [r.id, r.name])),
    collName: new Map([...b.collections, ...a.collections].map((c) => [c.id, c.name])),
    entries: [],
  };
  compareModule(p, a, b);
  compareCollections(p, a, b);
  compareColumns(p, a, b);
  compareRecords(p, a, b);
  compareCells(p, a, b);
  compareAmendments(p, a, b, opts);
  compareAutomations(p, a, b);
  compareGrants(p, a, b, notes);
  return { moduleId: a.module.id, otherModuleId: b.module.id, name: a.module.name, entries: p.entries, notes };
}

/** Records the b side cannot list (archived before a live read) drop out with all beneath them. */
function archivedUnlisted(a: ModuleTree, b: ModuleTree, tid: Pairing['tid'], notes: string[]): Set<string> {
  const bIds = new Set(b.records.map((r) => r.id));
  const hidden = new Set<string>();
  for (const r of a.records) {
    if (!bIds.has(tid(r.id)!) && (r.isArchived || (r.parentRecordId !== null && hidden.has(r.parentRecordId)))) hidden.add(r.id);
  }
  if (hidden.size) notes.push(`${hidden.size} archived record(s) not compared: the service cannot list archived records`);
  return hidden;
}

function compareModule(p: Pairing, a: ModuleTree, b: ModuleTree): void {
  const moduleKeys: (keyof ModuleTree['module'])[] = ['name', 'description', 'icon', 'color', 'visibility', 'tags'];
  const moduleFields = changes(fieldsOf(a.module, moduleKeys), fieldsOf(b.module, moduleKeys));
  if (moduleFields.length) p.entries.push({ entity: 'module', change: 'changed', id: a.module.id, label: a.module.name, fields: moduleFields });
}

function compareCollections(p: Pairing, a: ModuleTree, b: ModuleTree): void {
  compareSets('collection', byId(a.collections, (c) => c.name), byId(b.collections, (c) => c.name), idKey(p), (c) => fieldsOf(c, ['name', 'color', 'position', 'isCollapsed']), p.entries);
}

function compareColumns(p: Pairing, a: ModuleTree, b: ModuleTree): void {
  const colLabel = (c: Column): string => `${c.name}${c.scope === 'subrecord' ? ' (sub-record column)' : ''}`;
  compareSets(
    'column',
    byId(a.columns, colLabel),
    byId(b.columns, colLabel),
    idKey(p),
    (c, side) => {
      const f = fieldsOf(c, ['scope', 'name', 'type', 'position', 'width', 'isRequired', 'isHidden', 'statusOptions', 'settings']);
      return side === 'a' ? { ...f, settings: p.t(f.settings) } : f;
    },
    p.entries,
  );
}

function compareRecords(p: Pairing, a: ModuleTree, b: ModuleTree): void {
  const recLabel = (r: BoardRecord): string =>
    r.parentRecordId ? `${p.recName.get(r.parentRecordId) ?? r.parentRecordId} › ${r.name}` : `${p.collName.get(r.collectionId ?? '') ?? '?'} / ${r.name}`;
  const aRecords = a.records.filter((r) => !p.hidden.has(r.id));
  compareSets(
    'record',
    byId(aRecords, recLabel),
    byId(b.records, recLabel),
    idKey(p),
    (r, side) => {
      const f = fieldsOf(r, ['name', 'collectionId', 'parentRecordId', 'position', 'isCompleted', 'isArchived']);
      // Sub-records' collection is the service's business (it may follow the parent or be null).
      if (r.parentRecordId !== null) delete f.collectionId;
      return side === 'a' ? (p.t(f) as Record<string, unknown>) : f;
    },
    p.entries,
  );
}

/** Cells are identified by (record, column): a restored cell has a new id of its own. */
function compareCells(p: Pairing, a: ModuleTree, b: ModuleTree): void {
  const cellLabel = (c: Cell): string => `${p.recName.get(c.recordId) ?? c.recordId} · ${p.colName.get(c.columnId ?? '') ?? '(deleted column)'}`;
  const aCells = a.cells.filter((c) => !p.hidden.has(c.recordId));
  compareSets(
    'cell',
    byId(aCells, cellLabel),
    byId(b.cells, cellLabel),
    (s, side) => (side === 'a' ? `${p.tid(s.item.recordId)}|${p.tid(s.item.columnId)}` : `${s.item.recordId}|${s.item.columnId}`),
    (c, side) => ({ value: side === 'a' ? p.t(cellData(c.value)) : cellData(c.value) }),
    p.entries,
  );
}

/** Across a restore, b's authors and times are the restorer's and its messages carry the
 * attribution line: those are not compared. */
function compareAmendments(p: Pairing, a: ModuleTree, b: ModuleTree, opts: DiffOptions): void {
  const strip = opts.acrossRestore && opts.attribution ? attributionPattern(opts.attribution) : null;
  const amendmentLabel = (x: Amendment, list: Amendment[]): string => {
    const thread = threadOrder(list.filter((y) => y.recordId === x.recordId));
    return `${p.recName.get(x.recordId) ?? x.recordId} amendment #${thread.indexOf(x) + 1}${x.parentId ? ' (reply)' : ''}`;
  };
  const aAmendments = a.amendments.filter((x) => !p.hidden.has(x.recordId));
  compareSets(
    'amendment',
    aAmendments.map((x) => ({ id: x.id, label: amendmentLabel(x, aAmendments), item: x })),
    b.amendments.map((x) => ({ id: x.id, label: amendmentLabel(x, b.amendments), item: x })),
    idKey(p),
    (x, side) => {
      const message = side === 'b' && strip ? stripAttribution(x.message, strip) : x.message;
      const f: Record<string, unknown> = { parentId: side === 'a' ? p.tid(x.parentId) : x.parentId, message, edited: x.edited, isDeleted: x.isDeleted };
      if (!opts.acrossRestore) Object.assign(f, { userId: x.userId, createdAt: x.createdAt });
      return f;
    },
    p.entries,
  );
}

function compareAutomations(p: Pairing, a: ModuleTree, b: ModuleTree): void {
  compareSets(
    'automation',
    byId(a.automations, (x) => x.name),
    byId(b.automations, (x) => x.name),
    idKey(p),
    (x, side) => {
      const f = fieldsOf(x, ['name', 'scope', 'trigger', 'conditions', 'match', 'actions', 'isActive']);
      return side === 'a' ? (p.t(f) as Record<string, unknown>) : f;
    },
    p.entries,
  );
}

function compareGrants(p: Pairing, a: ModuleTree, b: ModuleTree, notes: string[]): void {
  if (a.grants && b.grants) {
    const bg = new Set(b.grants);
    const ag = new Set(a.grants);
    for (const u of a.grants) if (!bg.has(u)) p.entries.push({ entity: 'grant', change: 'removed', id: u, label: `access for user ${u}` });
    for (const u of b.grants) if (!ag.has(u)) p.entries.push({ entity: 'grant', change: 'added', id: u, label: `access for user ${u}` });
  } else if (a.grants?.length || b.grants?.length) {
    notes.push('module-access grants not compared: the key may not read them');
  }
}

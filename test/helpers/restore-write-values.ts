// The restore writer's vocabulary: what it sees of the target module (Scene), what a write kind may
// use of the writer (WriterTools: its seeded random draws, its logged calls), and the values and
// automations it writes. The kinds themselves are in restore-write-kinds.ts, the writer in
// restore-writes.ts.

import type { Dialect } from '../../src/emulator/types.js';
import type { LooseDump } from './harness.js';
import type { ServiceTarget } from './service-target.js';

export type Doc = Record<string, any>;

/** What the target module holds now (from the emulator's documents), for choosing the next write. */
export interface Scene {
  d: LooseDump;
  mod: Doc;
  ws: string;
  colls: Doc[];
  cols: Doc[];
  tops: Doc[];
  archivedTops: Doc[];
  subs: Doc[];
  archivedSubs: Doc[];
  values: Doc[];
  amendments: Doc[];
  autos: Doc[];
  wsAutos: Doc[];
  /** Live modules other than the target that may be named (relation targets, create_record). */
  others: Doc[];
}

/** One weighted write: its weight, its name, and the write (false: nothing to do in this scene). */
export type Kind = [number, string, (s: Scene) => Promise<boolean>];

/** What the write kinds use of the writer: every draw and every call goes through it, in order. */
export interface WriterTools {
  readonly dialect: Dialect;
  readonly users: string[];
  readonly target: ServiceTarget;
  /** Writes so far (names made unique with it). */
  readonly n: number;
  rnd(): number;
  pick<T>(xs: readonly T[]): T | undefined;
  chance(p: number): boolean;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  postValue(rec: Doc, col: Doc, value: string): Promise<{ status: number; body: any }>;
}

// ---- values -------------------------------------------------------------------------------


export function validValue(w: WriterTools, s: Scene, col: Doc): string | undefined {
  const n = w.n;
  switch (col.type) {
    case 'number':
      return String(Math.floor(w.rnd() * 1000));
    case 'status':
      return w.pick(col.statusOptions as Doc[])?.label ?? 'Done';
    case 'email':
      return `person${n}@example.com`;
    case 'phone':
      return `+1 555 01${String(n % 100).padStart(2, '0')}`;
    case 'checkbox':
      return w.chance(0.5) ? 'true' : 'false';
    case 'rating':
      return String(Math.floor(w.rnd() * 10) / 2);
    case 'date':
      return `2026-0${1 + (n % 9)}-1${n % 10}`;
    case 'person':
      return JSON.stringify(w.chance(0.3) ? w.users.slice(0, 2) : [w.pick(w.users.slice(0, 2))]);
    case 'timeline':
      return JSON.stringify({ startDate: '2026-02-01', endDate: `2026-03-1${n % 10}` });
    case 'relation': {
      const target = col.settings?.targetModule;
      const recs = s.d.records.filter((r) => r.module === target && !r.isDeleted && !r.isArchived && !r.parentRecord);
      const a = w.pick(recs);
      const b = w.pick(recs);
      return JSON.stringify([...new Set([a?._id, b?._id].filter(Boolean))]);
    }
    case 'reference':
      return undefined;
    default:
      return `${col.type} value ${n}`;
  }
}

export function recordsFor(s: Scene, col: Doc): Doc[] {
  // The spec keeps the grids apart (a sub-record takes sub-record columns); observed does not check.
  if (col.scope === 'subrecord') return s.subs;
  return s.tops;
}

// ---- automations --------------------------------------------------------------------------

export function moduleAutomation(w: WriterTools, s: Scene): Doc | undefined {
  const recCols = s.cols.filter((c) => c.scope === 'record');
  const subCols = s.cols.filter((c) => c.scope === 'subrecord');
  const status = w.pick(recCols.filter((c) => c.type === 'status'));
  const text = w.pick(recCols.filter((c) => ['text', 'link', 'dropdown'].includes(c.type)));
  const coll = w.pick(s.colls);
  const other = w.pick(s.others);
  const n = w.n;
  const options: Array<Doc | undefined> = [
    status && { name: `complete on ${n}`, trigger: { type: 'column_changed_to', column: status._id, value: w.pick(status.statusOptions as Doc[])?.label ?? 'Done' }, conditions: [], match: 'all', actions: [{ type: 'set_completed', value: true }] },
    text && { name: `stamp ${n}`, trigger: { type: 'record_created' }, conditions: [{ source: 'record', field: 'is_completed', op: 'is', value: 'false' }], match: 'all', actions: [{ type: 'set_column_value', column: text._id, value: `stamped ${n}` }] },
    coll && { name: `move ${n}`, trigger: { type: 'record_completed' }, conditions: [{ source: 'record', field: 'collection', op: 'is_not', value: coll._id }], match: 'any', actions: [{ type: 'move_to_collection', collectionName: coll._id }] },
    { name: `welcome ${n}`, trigger: { type: 'record_created' }, conditions: [{ source: 'record', field: 'name', op: 'contains', value: '7' }], match: 'all', actions: [{ type: 'post_amendment', value: `welcome note ${n}` }] },
    { name: `kick-off ${n}`, trigger: { type: 'record_created' }, conditions: [{ source: 'record', field: 'name', op: 'starts_with', value: 'Epic' }], match: 'all', actions: [{ type: 'create_subrecord', value: 'Kick-off' }] },
    subCols.length && text ? { name: `parent note ${n}`, trigger: { type: 'subrecord_completed' }, conditions: [], match: 'all', actions: [{ type: 'set_parent_column_value', column: text._id, value: `a step is done ${n}` }] } : undefined,
    other && { name: `echo ${n}`, trigger: { type: 'record_uncompleted' }, conditions: [], match: 'all', actions: [{ type: 'create_record', targetModule: other._id, value: `echo ${n}` }] },
    text && { name: `rename ${n}`, trigger: { type: 'column_changed', column: text._id }, conditions: [{ source: 'column', column: text._id, field: 'value', op: 'is_not_empty', value: '' }], match: 'all', actions: [{ type: 'rename_record', value: '{{name}} ✓' }] },
  ];
  return w.pick(options.filter((o): o is Doc => !!o));
}

export function workspaceAutomation(w: WriterTools): Doc {
  const n = w.n;
  return w.pick([
    { name: `ws done ${n}`, trigger: { type: 'column_changed_to', columnName: 'Status', value: 'Done' }, conditions: [], match: 'all', actions: [{ type: 'set_completed', value: true }] },
    { name: `ws urgent ${n}`, trigger: { type: 'record_created' }, conditions: [{ source: 'record', field: 'name', op: 'starts_with', value: 'Urgent' }], match: 'all', actions: [{ type: 'post_amendment', value: `flagged urgent ${n}` }] },
    { name: `ws notes ${n}`, trigger: { type: 'amendment_posted' }, conditions: [{ source: 'record', field: 'is_completed', op: 'is', value: 'true' }], match: 'all', actions: [{ type: 'set_column_value', columnName: 'Notes', value: `commented when done ${n}` }] },
  ])!;
}


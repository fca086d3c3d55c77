// What the console's recover preview reads of one module's content (records, cells, amendments), fast
// enough for a module of 10,000 records (a restore's, at one snapshot: restore-content.ts): for a
// rollback's two sides, snapshot s and the latest l, only what
// the rollback planner can act on: the records, cells and notes whose version differs between the
// sides but the plain ones (counted in SQL: record-census.ts, module-census.ts), what it rebuilds
// whole (records and columns gone by l, records under gone ones), and the records those name (their
// parents), every version both sides hold read once and shared. Fed to the very same planners
// through `withContent` (with-content.ts), a StateReader that answers records/cells/amendments of
// that module from here.

import type Database from 'better-sqlite3';
import type { Amendment, BoardRecord, Cell } from '../../domain/entities.js';
import { SPECS, fromRow, quoteCol, type EntitySpec } from '../tables/entity-specs.js';
import { prepared } from './prepared.js';
import { BY_TIME, censusOf, censusSql, fewChangesIn, type PlainCensus } from './module-census.js';
import { recordCensus, type RecordCensus } from './record-census.js';

const OPEN = '9223372036854775807';

export interface ModuleContent {
  records: BoardRecord[];
  cells: Cell[];
  amendments: Amendment[];
}

/** Columns read as NULL: `raw` (the planners ignore it), and a cell's times (they never read them). */
const LEAN_NULL = { cell: new Set(['raw', 'created_at', 'updated_at']), other: new Set(['raw']) };
/** The select list with those read as NULL (parsed to null). */
const leanList = (spec: EntitySpec): string => spec.fields.map((x) => ((spec.kind === 'cell' ? LEAN_NULL.cell : LEAN_NULL.other).has(x.col) ? `NULL AS ${quoteCol(x.col)}` : quoteCol(x.col))).join(', ');
/** Record columns the window leaves out of its JSON: the module's id (every version read is the
 * module's: it is filled in), and what no planner reads (read as null): the update time and the
 * counts. On the thousands of versions of a long window, they are a fifth of the bytes parsed (and
 * the workspace's id, sent only when it is not the usual one, another tenth). */
const RECORD_LEFT_OUT = new Set(['module_id', 'updated_at', 'sub_record_count', 'amendment_count']);
const recordRead = SPECS.record.fields.filter((x) => !RECORD_LEFT_OUT.has(x.col));
/** Where each record field sits in the JSON row (after vid, valid_from, valid_to), -1 when left out. */
const recordSlot = SPECS.record.fields.map((x) => (RECORD_LEFT_OUT.has(x.col) ? -1 : 3 + recordRead.indexOf(x)));
const R_MODULE = SPECS.record.fields.findIndex((x) => x.col === 'module_id');
const R_WORKSPACE = SPECS.record.fields.findIndex((x) => x.col === 'workspace_id');
/** SQL: the workspace of one of the module's records — most likely every one's: a version's
 * workspace_id (never null) is sent as null when it is that one, and filled in. */
const ONE_WORKSPACE = `(SELECT (SELECT x.workspace_id FROM record_versions x WHERE x.module_id = @m LIMIT 1) AS id) w`;
/** SQL: versions of the module's records as one JSON array of [vid, valid_from, valid_to, ...the
 * fields read] — on thousands of rows one string parsed at once costs far less than a value at a time
 * (JSON renders SQLite's REAL so that it reads back the same double). */
const recordsJson = `SELECT json_group_array(json_array(r.vid, r.valid_from, r.valid_to, ${recordRead
  .map((x) => (x.col === 'raw' ? 'CASE WHEN r.created_at IS NULL THEN r.raw END' : x.col === 'workspace_id' ? 'nullif(r.workspace_id, w.id)' : `r.${quoteCol(x.col)}`))
  .join(', ')})), w.id FROM record_versions r, ${ONE_WORKSPACE} WHERE +r.module_id = @m`;

/** The versions of the module's records `where` selects (over `r`: by id or parent — the unary +
 * above keeps SQLite from reading every version of the module to find a few). */
function recordRows(db: Database.Database, where: string, params: Record<string, unknown>): Row[] {
  const [json, ws] = prepared(db, `${recordsJson} AND ${where}`).raw(true).get(params) as [string, string | null];
  const m = params.m as string;
  return (JSON.parse(json) as unknown[][]).map((v) => {
    const rest = recordSlot.map((i) => (i < 0 ? null : v[i]));
    rest[R_MODULE] = m;
    rest[R_WORKSPACE] ??= ws;
    return { vid: v[0] as number, from: v[1] as number, to: v[2] as number | null, rest };
  });
}

type Row = { vid: number; from: number; to: number | null; rest: unknown[] };

function rows(db: Database.Database, sql: string, params: Record<string, unknown>): Row[] {
  return (prepared(db, sql).raw(true).all(params) as unknown[][]).map(([vid, from, to, ...rest]) => ({ vid: vid as number, from: from as number, to: to as number | null, rest }));
}

const at = (r: Row, n: number): boolean => r.from <= n && (r.to === null || r.to > n);

/** SQL: the module's records of any version in the window, and its top-level records at s. */
export const everSql = `SELECT r.id FROM record_versions r WHERE r.module_id = @m AND r.valid_from <= @l AND coalesce(r.valid_to, ${OPEN}) > @s`;
/** SQL: the module's records at s or at l (everSql but those that came and went in between), each
 * once: those at s, and `@newSince` (those at l new since, record-census.ts). */
const sidesSql = `SELECT r.id FROM record_versions r WHERE r.module_id = @m AND r.valid_from <= @s AND coalesce(r.valid_to, ${OPEN}) > @s
  UNION ALL SELECT value FROM json_each(@newSince)`;
/** SQL: the module's sub-records at s. */
const subAtS = `SELECT r.id FROM record_versions r WHERE r.module_id = @m AND r.parent_record_id IS NOT NULL AND r.valid_from <= @s AND coalesce(r.valid_to, ${OPEN}) > @s`;
/** SQL: a version at s closed by l, or one at l opened after s (an edit is one of each). */
const changedVersion = (a: string): string => `((${a}.valid_from <= @s AND ${a}.valid_to > @s AND ${a}.valid_to <= @l) OR (${a}.valid_from > @s AND ${a}.valid_from <= @l AND coalesce(${a}.valid_to, ${OPEN}) > @l))`;
/** A version of either side (not one that came and went in between). */
const either = (a: string): string => `((${a}.valid_from <= @s AND coalesce(${a}.valid_to, ${OPEN}) > @s) OR (${a}.valid_from <= @l AND ${a}.valid_to IS NULL) OR (${a}.valid_from <= @l AND ${a}.valid_to > @l))`;
const head = (a: string): string => `${a}.vid, ${a}.valid_from, ${a}.valid_to`;

/**
 * Both sides of a rollback (s < l), reduced to what the rollback planner can act on: with the latest
 * backup standing in for the service, a record, cell or note whose version both sides share plans
 * nothing (its three sides are equal), unless the planner rebuilds it whole. So: the records whose
 * version differs between the sides — but the plain ones (record-census.ts) past the first `listed`
 * when `recordsSelected`, all of them otherwise: counted in SQL (`records`; those read all the same,
 * for what follows, are named in `records.counted`) —, those of a collection gone by l, those under
 * a record gone by l,
 * the records of every cell and changed note read, and their parents — each with both its sides (a
 * version both hold is one object), in state.records()'s order. Notes whole; cells only where the
 * sides differ, every cell of a record gone by l (or under one) and of a column gone by l, and the
 * cells both hold whose value may name a record gone by l (or under one). Cells of `plainColumns`
 * in top-level records both sides hold are left out: those of the `selected` ones are counted in SQL
 * (`census`, store/read/module-census.ts, with its first `listed`).
 */
export function readModuleWindow(
  db: Database.Database,
  moduleId: string,
  s: number,
  l: number,
  plainColumns: readonly string[],
  selected: readonly string[],
  listed: number,
  recordsSelected = true,
): { base: ModuleContent; after: ModuleContent; census: PlainCensus; records: RecordCensus & { counted: Set<string> } } {
  const p: Record<string, unknown> = { m: moduleId, s, l };
  // the records whose version differs between the sides, paired and counted in SQL where plain
  // (record-census.ts); read (every version of either side) those that are not, those new since,
  // and the first page of the plain ones (the planner plans those: the page lists what it plans)
  const recCensus = recordCensus(db, p, recordsSelected ? listed : 0);
  const newSince = new Set(recCensus.newSince);
  const firstPlain = new Set(recCensus.first);
  const notPlainRecords = new Set(recCensus.notPlain);
  const whole = [...new Set([...recCensus.notPlain, ...recCensus.first, ...newSince])];
  const recRows = whole.length ? recordRows(db, `r.id IN (SELECT value FROM json_each(@k)) AND ${either('r')}`, { ...p, k: JSON.stringify(whole) }) : [];
  const parentCol = SPECS.record.fields.findIndex((x) => x.col === 'parent_record_id');
  const idCol = SPECS.record.fields.findIndex((x) => x.col === 'id');
  const idOf = (r: Row): string => r.rest[idCol] as string;
  const atS = new Map<string, Row>();
  const atL = new Map<string, Row>();
  const place = (list: Row[]): void => {
    for (const r of list) {
      if (at(r, s)) atS.set(idOf(r), r);
      if (at(r, l)) atL.set(idOf(r), r);
    }
  };
  place(recRows);
  const notPlain = [...atS].filter(([id, r]) => r.rest[parentCol] === null && atL.get(id)?.rest[parentCol] !== null).map(([id]) => id);
  // the records whose plain cells are counted are those top-level at s and at l: the others the
  // census looks at (the records at s or at l), named here (few, usually), are those of notPlain
  // (top-level at s, gone or under a parent by l: not plain records, so read), the sub-records at s,
  // and the records at l new since. (A record that came and went in between is at neither side: no
  // cell of it is on either, and the census leaves it out.)
  const nonPlain = new Set([...notPlain, ...newSince]);
  for (const id of prepared(db, subAtS).pluck().all(p) as string[]) nonPlain.add(id);
  p.nonPlain = JSON.stringify([...nonPlain]);
  p.newSince = JSON.stringify([...newSince]);

  // the records the planner rebuilds whole: gone by l, and (at s) under one, with every version
  const gone = [...atS.keys()].filter((id) => !atL.has(id));
  const under = new Set(gone);
  for (let next = gone; next.length; ) {
    const parents = new Set(next);
    const subs = recordRows(db, `r.parent_record_id IN (SELECT value FROM json_each(@ps)) AND ${either('r')}`, { ...p, ps: JSON.stringify(next) });
    const fresh = subs.filter((r) => !atS.has(idOf(r)) && !atL.has(idOf(r)));
    place(fresh);
    recRows.push(...fresh);
    next = [...new Set(subs.map(idOf))].filter((id) => !under.has(id) && parents.has(atS.get(id)?.rest[parentCol] as string));
    for (const id of next) under.add(id);
  }
  const records = prepared(db, `SELECT count(*) FROM (${everSql})`).pluck().get(p) as number;
  const changed = changedCells(db, p, plainColumns, selected, listed, records, under);
  const allCells = distinctCells([...changed.rows, ...wholeCells(db, p, [...under])]);
  const noteRows = windowNotes(db, p, records);

  // the other records the planner looks at: of gone collections, of the cells and changed notes read
  const wanted = new Set<string>(inGoneCollections(db, p));
  for (const c of allCells) wanted.add(c.rest[CELL_RECORD_COL] as string);
  const noteRecordCol = SPECS.amendment.fields.findIndex((x) => x.col === 'record_id') + 2;
  for (const a of noteRows) if (at(a, s) !== at(a, l)) wanted.add(a.rest[noteRecordCol] as string);
  // and the parents of every record they look at (labels, where a sub-record's cell goes)
  for (let round = 0; round < 2; round++) {
    if (round === 1) for (const r of recRows) if (r.rest[parentCol] !== null) wanted.add(r.rest[parentCol] as string);
    const missing = [...wanted].filter((id) => !atS.has(id) && !atL.has(id));
    wanted.clear();
    if (!missing.length) continue;
    const more = recordRows(db, `r.id IN (SELECT value FROM json_each(@k)) AND ${either('r')}`, { ...p, k: JSON.stringify(missing) });
    place(more);
    recRows.push(...more);
  }
  recRows.sort(recordOrder);

  const recCache = new Map<number, BoardRecord>();
  const cellCache = new Map<number, Cell>();
  const noteCache = new Map<number, Amendment>();
  // a cell belongs to a side when its record is there then (as state.cells reads them); a note when
  // the module names it or its record is there then
  const cellsAt = (n: number, there: ReadonlyMap<string, unknown>): Cell[] => side<Cell>(allCells, SPECS.cell, n, cellCache).filter((c) => there.has(c.recordId));
  const notesAt = (n: number, flag: 0 | 1): Amendment[] => {
    const out: Amendment[] = [];
    for (const a of noteRows) {
      if (!at(a, n)) continue;
      let e = noteCache.get(a.vid);
      if (!e) noteCache.set(a.vid, (e = fromRow<Amendment>(SPECS.amendment, a.rest.slice(2))));
      if (e.moduleId === moduleId || a.rest[flag] === 1) out.push(e);
    }
    return out;
  };
  // the plain records read beyond the first page (as parents, or for their cells or notes): counted
  // in SQL, so not planned again (a record whose version both sides share was not counted)
  const counted = new Set<string>();
  for (const [id, r] of atS) if (atL.has(id) && atL.get(id)!.vid !== r.vid && !notPlainRecords.has(id) && !firstPlain.has(id)) counted.add(id);
  return {
    base: { records: side<BoardRecord>(recRows, SPECS.record, s, recCache), cells: cellsAt(s, atS), amendments: notesAt(s, 0) },
    after: { records: side<BoardRecord>(recRows, SPECS.record, l, recCache), cells: cellsAt(l, atL), amendments: notesAt(l, 1) },
    census: changed.census,
    records: { ...recCensus, counted },
  };
}
const CELL_RECORD_COL = SPECS.cell.fields.findIndex((x) => x.col === 'record_id');
const CELL_ID_COL = SPECS.cell.fields.findIndex((x) => x.col === 'id');

/** Each cell version once, in the order state.cells() reads them: record, then id. */
function distinctCells(cellRows: Row[]): Row[] {
  const seen = new Set<number>();
  const out = cellRows.filter((r) => !seen.has(r.vid) && (seen.add(r.vid), true));
  out.sort((a, b) => binaryCmp(a.rest[CELL_RECORD_COL] as string, b.rest[CELL_RECORD_COL] as string) || binaryCmp(a.rest[CELL_ID_COL] as string, b.rest[CELL_ID_COL] as string));
  return out;
}

/**
 * The window's notes whole, each with whether its record is in the module at s and at l
 * (+x.module_id: each probe seeks the record's versions by id, not the module's by module).
 */
function windowNotes(db: Database.Database, p: Record<string, unknown>, records: number): Row[] {
  const inModule = (from: string, to: string): string => `EXISTS (SELECT 1 FROM record_versions x WHERE x.id = a.record_id AND +x.module_id = @m AND x.valid_from <= @${to} AND coalesce(x.valid_to, ${OPEN}) > @${from})`;
  // the database holding fewer note versions than the window's record versions: each note checked
  // by its record, rather than each record's notes sought
  const fewNotes = ((prepared(db, 'SELECT max(vid) FROM amendment_versions').pluck().get() as number | null) ?? 0) <= records;
  return rows(
    db,
    `SELECT ${head('a')}, ${inModule('s', 's')}, ${inModule('l', 'l')}, ${leanList(SPECS.amendment)} FROM amendment_versions a
      WHERE (a.module_id = @m OR ${fewNotes ? inModule('s', 'l') : `a.record_id IN (${everSql})`}) AND ${either('a')} ORDER BY a.created_at, a.id`,
    p,
  );
}

function side<T>(list: Row[], spec: EntitySpec, n: number, cache: Map<number, T>): T[] {
  const out: T[] = [];
  for (const r of list) {
    if (!at(r, n)) continue;
    let e = cache.get(r.vid);
    if (!e) cache.set(r.vid, (e = fromRow<T>(spec, r.rest)));
    out.push(e);
  }
  return out;
}

/** The module's records at s in a collection l no longer holds (the planner moves them back into its copy). */
function inGoneCollections(db: Database.Database, p: Record<string, unknown>): string[] {
  const gone = prepared(db, `${structureAt('collection', 's')} EXCEPT ${structureAt('collection', 'l')}`).pluck().all(p) as string[];
  if (!gone.length) return [];
  return prepared(db, `SELECT r.id FROM record_versions r WHERE r.collection_id IN (SELECT value FROM json_each(@gc)) AND r.module_id = @m AND r.valid_from <= @s AND coalesce(r.valid_to, ${OPEN}) > @s`).pluck().all({ ...p, gc: JSON.stringify(gone) }) as string[];
}

/** SQL: the ids of a module's collections or columns at snapshot @n. */
const structureAt = (kind: 'collection' | 'column', n: string): string => `SELECT v.id FROM ${kind}_versions v WHERE v.module_id = @m AND v.valid_from <= @${n} AND coalesce(v.valid_to, ${OPEN}) > @${n}`;

/**
 * Cell versions at s closed by l and at l opened after s (an edit is one of each) of the module's
 * records at s or at l, but those of `plainColumns` in the records not named in `@nonPlain` — and those counted, for
 * the `selected` columns (censusSql, module-census.ts: its first `limit`). The census groups the
 * changed versions by cell and names the groups that are not plain; only their versions are read
 * as rows (by their records, then kept by cell), but those of `readWhole` (wholeCells reads them).
 */
function changedCells(db: Database.Database, p: Record<string, unknown>, plainColumns: readonly string[], selected: readonly string[], limit: number, records: number, readWhole: ReadonlySet<string>): { rows: Row[]; census: PlainCensus } {
  // a short window's changed cells are found by the versions closed and opened in it (unary + keeps
  // SQLite from seeking by record there), a long one's by the module's records: the same rows, those
  // by record in (record, column) order, grouped without a sort
  const where = fewChangesIn(db, p.s as number, p.l as number, records * 8) ? `${BY_TIME} AND +c.record_id IN (${sidesSql})` : `c.record_id IN (${sidesSql}) AND ${changedVersion('c')}`;
  const list = prepared(db, censusSql(where))
    .raw(true)
    .all({ ...p, pc: JSON.stringify(plainColumns), sel: JSON.stringify(selected), limit: Math.max(limit, 0) }) as unknown[][];
  const { counts, first, notPlain } = censusOf(list, limit);
  first.sort((a, b) => (a.inBase !== b.inBase ? (a.inBase ? -1 : 1) : binaryCmp(a.recordId, b.recordId) || binaryCmp(a.id, b.id)));
  if (!notPlain.length) return { rows: [], census: { counts, first } };
  const cellsOf = new Map<string, Set<string | null>>();
  // (not the records read whole: wholeCells reads every version either side holds of their cells,
  // which their changed ones are among — read once, not twice)
  for (const [r, c] of notPlain) if (!readWhole.has(r)) (cellsOf.get(r) ?? cellsOf.set(r, new Set()).get(r)!).add(c);
  if (!cellsOf.size) return { rows: [], census: { counts, first } };
  const cols = SPECS.cell.fields.map((x) => (LEAN_NULL.cell.has(x.col) ? 'NULL' : `c.${quoteCol(x.col)}`)).join(', ');
  const recordCol = SPECS.cell.fields.findIndex((x) => x.col === 'record_id');
  const columnCol = SPECS.cell.fields.findIndex((x) => x.col === 'column_id');
  const read = rows(db, `SELECT ${head('c')}, ${cols} FROM cell_versions c WHERE c.record_id IN (SELECT value FROM json_each(@k)) AND ${changedVersion('c')}`, { ...p, k: JSON.stringify([...cellsOf.keys()]) });
  return { rows: read.filter((r) => cellsOf.get(r.rest[recordCol] as string)!.has(r.rest[columnCol] as string | null)), census: { counts, first } };
}

/** Cells of either side of `under` (records gone by l and under them) and of the module's columns
 * gone by l, and the cells both sides hold that may name one of `under`: the planner recreates
 * those records and columns, and re-points such cells to the copies (planCells' relation cells). */
function wholeCells(db: Database.Database, p: Record<string, unknown>, under: readonly string[]): Row[] {
  const goneColumns = prepared(db, `${structureAt('column', 's')} EXCEPT ${structureAt('column', 'l')}`).pluck().all(p) as string[];
  const out: Row[] = [];
  if (!under.length && !goneColumns.length) return out;
  // (one statement for every record: the module's records are listed once, not once per record)
  const whole = `SELECT ${head('c')}, ${leanList(SPECS.cell)} FROM cell_versions c WHERE ${either('c')} AND c.record_id IN (${everSql})`;
  const named = { ...p, named: JSON.stringify(under) };
  if (under.length) out.push(...rows(db, `${whole} AND c.record_id IN (SELECT value FROM json_each(@named))`, named));
  if (goneColumns.length) out.push(...rows(db, `${whole} AND c.column_id IN (SELECT value FROM json_each(@cs))`, { ...p, cs: JSON.stringify(goneColumns) }));
  if (under.length) {
    // what remappableCell (restore/engine/remap.ts) finds ids in: a value that is one, or a JSON
    // array or object with one as a string at any depth — sought through a lookup of the ids, not a
    // scan of them per cell; JSON SQLite cannot read falls back to a substring test (a superset:
    // a cell both sides hold that names nothing plans nothing)
    const naming = `SELECT ${head('c')}, ${leanList(SPECS.cell)} FROM cell_versions c WHERE c.record_id IN (${everSql}) AND c.valid_from <= @s AND coalesce(c.valid_to, ${OPEN}) > @l
      AND c.value IS NOT NULL AND (c.value IN (SELECT value FROM json_each(@named))
        OR (substr(c.value, 1, 1) IN ('[', '{') AND CASE WHEN json_valid(c.value)
          THEN EXISTS (SELECT 1 FROM json_tree(c.value) t WHERE t.type = 'text' AND t.atom IN (SELECT value FROM json_each(@named)))
          ELSE EXISTS (SELECT 1 FROM json_each(@named) g WHERE instr(c.value, g.value) > 0) END))`;
    out.push(...rows(db, naming, named));
  }
  return out;
}

/** SQLite's BINARY order of two strings (their UTF-8 bytes, so code points), which `<` on UTF-16 is not. */
export function binaryCmp(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // a surrogate (U+D800–DFFF: half of a code point above U+FFFF) sorts after U+E000–FFFF
    const hx = x >= 0xd800 && x <= 0xdfff;
    const hy = y >= 0xd800 && y <= 0xdfff;
    if (hx !== hy && (hx ? y : x) >= 0xe000) return hx ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

const recordCol = (col: string): number => SPECS.record.fields.findIndex((x) => x.col === col);
const R_PARENT = recordCol('parent_record_id');
const R_POSITION = recordCol('position');
const R_ID = recordCol('id');
/** state.records()'s order: parent_record_id IS NOT NULL, position IS NULL, position, id. */
function recordOrder(a: Row, b: Row): number {
  const pa = a.rest[R_PARENT] !== null ? 1 : 0;
  const pb = b.rest[R_PARENT] !== null ? 1 : 0;
  if (pa !== pb) return pa - pb;
  const xa = a.rest[R_POSITION] as number | null;
  const xb = b.rest[R_POSITION] as number | null;
  if ((xa === null) !== (xb === null)) return xa === null ? 1 : -1;
  if (xa !== null && xb !== null && xa !== xb) return xa < xb ? -1 : 1;
  return binaryCmp(a.rest[R_ID] as string, b.rest[R_ID] as string);
}

/** Names of records at snapshot n (the first page of a rollback preview labels plain cells with them). */
export function recordNamesAt(db: Database.Database, moduleId: string, n: number, ids: readonly string[]): Map<string, string> {
  if (!ids.length) return new Map();
  const list = prepared(db, `SELECT r.id, r.name FROM record_versions r WHERE r.id IN (SELECT value FROM json_each(@ids)) AND +r.module_id = @m AND r.valid_from <= @n AND coalesce(r.valid_to, ${OPEN}) > @n`)
    .raw(true)
    .all({ ids: JSON.stringify([...new Set(ids)]), m: moduleId, n }) as [string, string][];
  return new Map(list);
}

// What the console's recover preview reads of one module's content (records, cells, amendments), fast
// enough for a module of 10,000 records: at one snapshot without the cells' and amendments' `raw` (the
// planners never read it), or — for a rollback's two sides, snapshot s and the latest l — every
// version both hold read once and shared, and cells only where the two sides differ, plus those the
// planner rebuilds whole (of records and columns gone by l). Fed to the very same planners through
// `withContent`, a StateReader that answers records/cells/amendments of that module from here.

import type Database from 'better-sqlite3';
import type { Amendment, BoardRecord, Cell, Collection, Column, ColumnScope, Module } from '../../domain/entities.js';
import { SPECS, fromRow, quoteCol, type EntitySpec } from '../tables/entity-specs.js';
import type { StateReader } from '../port.js';
import { fewChangesIn } from './module-census.js';

const OPEN = '9223372036854775807';

export interface ModuleContent {
  records: BoardRecord[];
  cells: Cell[];
  amendments: Amendment[];
}

/** The select list with `raw` read as NULL (parsed to null): kinds whose raw the planners ignore;
 * for cells their times too (the planners never read them). */
const leanList = (spec: EntitySpec): string =>
  spec.fields.map((x) => (x.col === 'raw' || (spec.kind === 'cell' && (x.col === 'created_at' || x.col === 'updated_at')) ? `NULL AS ${quoteCol(x.col)}` : quoteCol(x.col))).join(', ');
/** Records: raw only where the planners may look in it — the creation time, when the row has none
 * (sibling-order.ts createdAtOf). */
const recordList = (a: string): string =>
  SPECS.record.fields.map((x) => (x.col === 'raw' ? `CASE WHEN ${a}.created_at IS NULL THEN ${a}.raw END AS ${quoteCol('raw')}` : `${a}.${quoteCol(x.col)}`)).join(', ');

type Row = { vid: number; from: number; to: number | null; rest: unknown[] };

function rows(db: Database.Database, sql: string, params: Record<string, unknown>): Row[] {
  return (db.prepare(sql).raw(true).all(params) as unknown[][]).map(([vid, from, to, ...rest]) => ({ vid: vid as number, from: from as number, to: to as number | null, rest }));
}

const at = (r: Row, n: number): boolean => r.from <= n && (r.to === null || r.to > n);

/** The module's records, cells and notes as of snapshot n, cells and notes without `raw`; cells of
 * `skipColumns` left out (the restore preview counts those in SQL: store/read/module-census.ts). */
export function readModuleContent(db: Database.Database, moduleId: string, n: number, skipColumns: readonly string[] = []): ModuleContent {
  const p = { m: moduleId, n, skip: JSON.stringify(skipColumns) };
  const live = (a: string): string => `${a}.valid_from <= @n AND coalesce(${a}.valid_to, ${OPEN}) > @n`;
  const recs = db.prepare(`SELECT ${recordList('r')} FROM record_versions r WHERE r.module_id = @m AND ${live('r')} ORDER BY r.parent_record_id IS NOT NULL, r.position IS NULL, r.position, r.id`).raw(true).all(p) as unknown[][];
  const cells = db
    .prepare(`SELECT ${leanList(SPECS.cell)} FROM cell_versions c WHERE c.record_id IN (SELECT r.id FROM record_versions r WHERE r.module_id = @m AND ${live('r')}) AND ${live('c')} AND coalesce(c.column_id NOT IN (SELECT value FROM json_each(@skip)), 1) ORDER BY c.record_id, c.id`)
    .raw(true)
    .all(p) as unknown[][];
  const amendments = db
    .prepare(`SELECT ${leanList(SPECS.amendment)} FROM amendment_versions a WHERE (a.module_id = @m OR a.record_id IN (SELECT r.id FROM record_versions r WHERE r.module_id = @m AND ${live('r')})) AND ${live('a')} ORDER BY a.created_at, a.id`)
    .raw(true)
    .all(p) as unknown[][];
  return {
    records: recs.map((r) => fromRow<BoardRecord>(SPECS.record, r)),
    cells: cells.map((r) => fromRow<Cell>(SPECS.cell, r)),
    amendments: amendments.map((r) => fromRow<Amendment>(SPECS.amendment, r)),
  };
}

/**
 * Both sides of a rollback (s < l): records and notes whole (a version both hold is one object),
 * cells only where the sides differ, every cell at s of a record or a column gone by l, and the
 * cells both hold whose value may name a record gone by l (or under one). Cells of
 * `plainColumns` in top-level records both sides hold (`plainRecords`) are left out: the rollback
 * preview counts those in SQL (store/read/module-census.ts).
 */
export function readModuleWindow(
  db: Database.Database,
  moduleId: string,
  s: number,
  l: number,
  plainColumns: readonly string[] = [],
): { base: ModuleContent; after: ModuleContent; plainRecords: string[] } {
  const p: Record<string, unknown> = { m: moduleId, s, l };
  const span = (a: string): string => `${a}.valid_from <= @l AND coalesce(${a}.valid_to, ${OPEN}) > @s`;
  // a version of either side (not one that came and went in between)
  const either = (a: string): string => `((${a}.valid_from <= @s AND coalesce(${a}.valid_to, ${OPEN}) > @s) OR (${a}.valid_from <= @l AND ${a}.valid_to IS NULL) OR (${a}.valid_from <= @l AND ${a}.valid_to > @l))`;
  const head = (a: string): string => `${a}.vid, ${a}.valid_from, ${a}.valid_to`;
  const recRows = rows(db, `SELECT ${head('r')}, ${recordList('r')} FROM record_versions r WHERE r.module_id = @m AND ${either('r')} ORDER BY r.parent_record_id IS NOT NULL, r.position IS NULL, r.position, r.id`, p);
  // the module's records of any version in the window, read once for every query below
  p.ever = JSON.stringify(db.prepare(`SELECT DISTINCT r.id FROM record_versions r WHERE r.module_id = @m AND ${span('r')}`).pluck().all(p));
  const everIds = `SELECT value FROM json_each(@ever)`;
  // versions at s closed by l, and versions at l begun after s (an edit is one of each)
  const changed = `((c.valid_from <= @s AND c.valid_to > @s AND c.valid_to <= @l) OR (c.valid_from > @s AND c.valid_from <= @l AND coalesce(c.valid_to, ${OPEN}) > @l))`;
  const amendmentRows = rows(db, `SELECT ${head('a')}, ${leanList(SPECS.amendment)} FROM amendment_versions a WHERE (a.module_id = @m OR a.record_id IN (${everIds})) AND ${either('a')} ORDER BY a.created_at, a.id`, p);

  const side = <T>(list: Row[], spec: EntitySpec, n: number, cache: Map<number, T>): T[] =>
    list.filter((r) => at(r, n)).map((r) => {
      let e = cache.get(r.vid);
      if (!e) cache.set(r.vid, (e = fromRow<T>(spec, r.rest)));
      return e;
    });
  const recCache = new Map<number, BoardRecord>();
  const baseRecords = side<BoardRecord>(recRows, SPECS.record, s, recCache);
  const afterRecords = side<BoardRecord>(recRows, SPECS.record, l, recCache);
  const topAfter = new Set(afterRecords.filter((r) => r.parentRecordId === null).map((r) => r.id));
  const plainRecords = plainColumns.length ? baseRecords.filter((r) => r.parentRecordId === null && topAfter.has(r.id)).map((r) => r.id) : [];
  const plain = plainRecords.length ? ` AND NOT (c.column_id IN (SELECT value FROM json_each(@pc)) AND c.record_id IN (SELECT value FROM json_each(@pr)))` : '';
  // a short window's changed cells are found by the versions closed and opened in it (the same
  // rows; unary + keeps SQLite from seeking by record there), a long one's by the module's records
  const cellSql = fewChangesIn(db, s, l, JSON.parse(p.ever as string).length * 8)
    ? `SELECT ${head('c')}, ${leanList(SPECS.cell)} FROM cell_versions c WHERE c.valid_to > @s AND c.valid_to <= @l AND c.valid_from <= @s AND +c.record_id IN (${everIds})${plain}
       UNION ALL SELECT ${head('c')}, ${leanList(SPECS.cell)} FROM cell_versions c WHERE c.valid_from > @s AND c.valid_from <= @l AND c.valid_from > 0 AND coalesce(c.valid_to, ${OPEN}) > @l AND +c.record_id IN (${everIds})${plain}`
    : `SELECT ${head('c')}, ${leanList(SPECS.cell)} FROM cell_versions c WHERE c.record_id IN (${everIds}) AND ${changed}${plain}`;
  const cellRows = rows(db, cellSql, plain ? { ...p, pc: JSON.stringify(plainColumns), pr: JSON.stringify(plainRecords) } : p);

  // rebuilt whole by the planner: cells (at s) of records gone by l and of columns gone by l
  const liveRecords = new Set(afterRecords.map((r) => r.id));
  const goneRecords = baseRecords.filter((r) => !liveRecords.has(r.id)).map((r) => r.id);
  const liveColumns = new Set(db.prepare(`SELECT v.id FROM column_versions v WHERE v.module_id = @m AND v.valid_from <= @l AND coalesce(v.valid_to, ${OPEN}) > @l`).pluck().all(p) as string[]);
  const goneColumns = (db.prepare(`SELECT v.id FROM column_versions v WHERE v.module_id = @m AND v.valid_from <= @s AND coalesce(v.valid_to, ${OPEN}) > @s`).pluck().all(p) as string[]).filter((c) => !liveColumns.has(c));
  const extra: Row[] = [];
  if (goneRecords.length || goneColumns.length) {
    const whole = `SELECT ${head('c')}, ${leanList(SPECS.cell)} FROM cell_versions c WHERE c.valid_from <= @s AND coalesce(c.valid_to, ${OPEN}) > @s AND c.record_id IN (${everIds})`;
    const byRecord = db.prepare(`${whole} AND c.record_id = @r`).raw(true);
    const byColumn = db.prepare(`${whole} AND c.column_id = @c`).raw(true);
    const toRow = ([vid, from, to, ...rest]: unknown[]): Row => ({ vid: vid as number, from: from as number, to: to as number | null, rest });
    for (const r of goneRecords) extra.push(...(byRecord.all({ ...p, r }) as unknown[][]).map(toRow));
    for (const c of goneColumns) extra.push(...(byColumn.all({ ...p, c }) as unknown[][]).map(toRow));
  }
  if (goneRecords.length) {
    // cells both sides hold that may name a record the planner recreates (one gone by l, or under
    // one): it re-points them to the copy (planCells' relation cells)
    const under = new Set(goneRecords);
    for (let grew = true; grew; ) {
      grew = false;
      for (const r of baseRecords) if (r.parentRecordId !== null && under.has(r.parentRecordId) && !under.has(r.id)) (under.add(r.id), (grew = true));
    }
    const naming = `SELECT ${head('c')}, ${leanList(SPECS.cell)} FROM cell_versions c WHERE c.record_id IN (${everIds}) AND c.valid_from <= @s AND coalesce(c.valid_to, ${OPEN}) > @l
      AND c.value IS NOT NULL AND EXISTS (SELECT 1 FROM json_each(@named) g WHERE instr(c.value, g.value) > 0)`;
    extra.push(...rows(db, naming, { ...p, named: JSON.stringify([...under]) }));
  }
  const seen = new Set<number>();
  const allCells = [...cellRows, ...extra].filter((r) => !seen.has(r.vid) && (seen.add(r.vid), true));
  // the order state.cells() reads them in: record, then id
  const recordCol = SPECS.cell.fields.findIndex((x) => x.col === 'record_id');
  const idCol = SPECS.cell.fields.findIndex((x) => x.col === 'id');
  allCells.sort((a, b) => cmp(a.rest[recordCol] as string, b.rest[recordCol] as string) || cmp(a.rest[idCol] as string, b.rest[idCol] as string));
  const cellCache = new Map<number, Cell>();
  const amendmentCache = new Map<number, Amendment>();
  // an amendment belongs to a side when the module names it or its record is there then
  const baseIds = new Set(baseRecords.map((r) => r.id));
  const amendmentsAt = (n: number, ids: Set<string>): Amendment[] => side<Amendment>(amendmentRows, SPECS.amendment, n, amendmentCache).filter((a) => a.moduleId === moduleId || ids.has(a.recordId));
  return {
    base: { records: baseRecords, cells: side<Cell>(allCells, SPECS.cell, s, cellCache), amendments: amendmentsAt(s, baseIds) },
    after: { records: afterRecords, cells: side<Cell>(allCells, SPECS.cell, l, cellCache), amendments: amendmentsAt(l, liveRecords) },
    plainRecords,
  };
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** `state`, except that the module's records, cells and amendments come from `content`. */
export function withContent(state: StateReader, moduleId: string, content: ModuleContent): StateReader {
  const pick = <T>(m: string, mine: T[], theirs: () => T[]): T[] => (m === moduleId ? mine : theirs());
  return {
    snapshotId: state.snapshotId,
    workspaces: () => state.workspaces(),
    members: (ws) => state.members(ws),
    modules: (ws) => state.modules(ws),
    module: (m): Module | null => state.module(m),
    collections: (m): Collection[] => state.collections(m),
    columns: (m, scope?: ColumnScope): Column[] => state.columns(m, scope),
    records: (m) => pick(m, content.records, () => state.records(m)),
    record: (r) => state.record(r),
    cells: (m) => pick(m, content.cells, () => state.cells(m)),
    cellsOfRecord: (r) => state.cellsOfRecord(r),
    amendments: (m) => pick(m, content.amendments, () => state.amendments(m)),
    amendmentsOfRecord: (r) => state.amendmentsOfRecord(r),
    moduleAutomations: (m) => state.moduleAutomations(m),
    workspaceAutomations: (ws) => state.workspaceAutomations(ws),
    moduleAccess: (ws) => state.moduleAccess(ws),
    activity: (ws) => state.activity(ws),
    creationTimes: (ws, m) => state.creationTimes(ws, m),
    unplacedSubRecords: (m) => state.unplacedSubRecords(m),
    moduleSizes: (ws) => state.moduleSizes(ws),
  };
}

// What the console's restore preview ("whole module", ui/recover-restore.ts) reads of one module's
// content at a snapshot: the records the planner must look at, the cells that are not plain and the
// notes — and, counted in SQL rather than read, the cells of plain columns that hold a value and the
// plain records. Restoring a module of 10,000 records from a snapshot makes every record anew, each
// one identical step; building and planning each of them was most of what the preview spent.
//
// A plain record (why its step is the planner's is said in ui/recover-restore.ts): top-level,
// not archived, with a position, in one of the module's collections at the snapshot, alone at its
// position in that collection (no tie), with no sub-record at the snapshot, and named by no note
// nor any cell read here (a cell of a column that is not plain). Every other record is read whole,
// in state.records()'s order, and planned as before.

import type Database from 'better-sqlite3';
import type { Amendment, BoardRecord, Cell } from '../../domain/entities.js';
import { SPECS, fromRow, quoteCol } from '../tables/entity-specs.js';
import { binaryCmp, type ModuleContent } from './module-window.js';
import { prepared } from './prepared.js';

const OPEN = '9223372036854775807';
const live = (a: string): string => `${a}.valid_from <= @n AND coalesce(${a}.valid_to, ${OPEN}) > @n`;
/** SQL: the module's records at @n. */
const recordsAt = `SELECT r.id FROM record_versions r WHERE r.module_id = @m AND ${live('r')}`;

/** The cell columns read (a cell's raw and times are never read by the planners), in SPECS order. */
const CELL_READ = SPECS.cell.fields.map((x) => x.col).filter((c) => !['raw', 'created_at', 'updated_at'].includes(c));
/** One pass over the module's cells at @n: how many of `@plain` columns hold a value, and the others as JSON rows. */
const cellsSql = `SELECT count(*) FILTER (WHERE c.plain AND c.value IS NOT NULL), json_group_array(json_array(${CELL_READ.map((c) => `c.${quoteCol(c)}`).join(', ')})) FILTER (WHERE NOT c.plain)
  FROM (SELECT c.*, coalesce(c.column_id IN (SELECT value FROM json_each(@plain)), 0) AS plain FROM cell_versions c
         WHERE c.record_id IN (${recordsAt}) AND ${live('c')}) c`;

/** Notes of the module or of its records at @n. With fewer note versions in the database than the
 * module has records, each note is checked by its record rather than each record's notes sought. */
const notesSql = (fewNotes: boolean): string => `SELECT ${SPECS.amendment.fields.map((x) => (x.col === 'raw' ? `NULL AS ${quoteCol('raw')}` : quoteCol(x.col))).join(', ')} FROM amendment_versions a
  WHERE (a.module_id = @m OR ${fewNotes ? `EXISTS (SELECT 1 FROM record_versions x WHERE x.id = a.record_id AND +x.module_id = @m AND ${live('x')})` : `a.record_id IN (${recordsAt})`}) AND ${live('a')} ORDER BY a.created_at, a.id`;

/** SQL: (collection, position) of top-level records at @n sharing them, as tieChains groups them
 * (a missing position counts as 0; plain records have one). */
const tiedSql = `SELECT t.collection_id, coalesce(t.position, 0) FROM record_versions t WHERE t.module_id = @m AND t.parent_record_id IS NULL AND ${live('t')} GROUP BY 1, 2 HAVING count(*) > 1`;
/** SQL: whether record r is plain (0 or 1, never null: a record with no collection is not plain). */
const plainSql = `coalesce(r.parent_record_id IS NULL AND r.position IS NOT NULL AND r.is_archived IS NOT 1
    AND r.collection_id IN (SELECT v.id FROM collection_versions v WHERE v.module_id = @m AND ${live('v')})
    AND (r.collection_id, r.position) NOT IN (${tiedSql})
    AND r.id NOT IN (SELECT value FROM json_each(@named))
    AND r.id NOT IN (SELECT s.parent_record_id FROM record_versions s WHERE s.module_id = @m AND s.parent_record_id IS NOT NULL AND ${live('s')}), 0)`;
/** The module's records at @n: how many are plain, and the versions (vid) of the others (the
 * verdict computed once a record: materialized). */
const censusSql = `WITH x(vid, plain) AS MATERIALIZED (SELECT r.vid, ${plainSql} FROM record_versions r WHERE r.module_id = @m AND ${live('r')})
  SELECT count(*) FILTER (WHERE x.plain), json_group_array(x.vid) FILTER (WHERE NOT x.plain) FROM x`;
/** Records: raw only where the planners may look in it — the creation time, when the row has none. */
const recordFields = SPECS.record.fields.map((x) => (x.col === 'raw' ? 'CASE WHEN r.created_at IS NULL THEN r.raw END' : `r.${quoteCol(x.col)}`)).join(', ');
/** Those versions, as JSON rows in state.records()'s order. */
const recordsSql = `SELECT json_group_array(json_array(${recordFields}) ORDER BY r.parent_record_id IS NOT NULL, r.position IS NULL, r.position, r.id)
  FROM record_versions r WHERE r.vid IN (SELECT value FROM json_each(@vids))`;

export interface RestoreContent {
  /** The records that are not plain, the cells that are not of `plainColumns`, every note. */
  content: ModuleContent;
  /** Cells of `plainColumns` holding a value, in the module's records at the snapshot. */
  plainValued: number;
  /** Plain records (left out of content.records). */
  plainRecords: number;
}

export function readRestoreContent(db: Database.Database, moduleId: string, n: number, plainColumns: readonly string[]): RestoreContent {
  const p: Record<string, unknown> = { m: moduleId, n, plain: JSON.stringify(plainColumns) };
  const [plainValued, cellJson] = prepared(db, cellsSql).raw(true).get(p) as [number, string];
  const at = (c: string): number => CELL_READ.indexOf(c);
  const cellRows = (JSON.parse(cellJson) as unknown[][]).map((v) => SPECS.cell.fields.map((x) => (at(x.col) < 0 ? null : v[at(x.col)])));
  // state.cells()'s order: record, then id
  const rec = at('record_id');
  const id = at('id');
  cellRows.sort((a, b) => binaryCmp(a[rec] as string, b[rec] as string) || binaryCmp(a[id] as string, b[id] as string));
  const cells = cellRows.map((r) => fromRow<Cell>(SPECS.cell, r));
  const records = prepared(db, `SELECT count(*) FROM (${recordsAt})`).pluck().get(p) as number;
  const fewNotes = ((prepared(db, 'SELECT max(vid) FROM amendment_versions').pluck().get() as number | null) ?? 0) <= records;
  const amendments = (prepared(db, notesSql(fewNotes)).raw(true).all({ m: moduleId, n }) as unknown[][]).map((r) => fromRow<Amendment>(SPECS.amendment, r));
  p.named = JSON.stringify([...new Set([...cells.map((c) => c.recordId), ...amendments.map((a) => a.recordId)])]);
  const [plainRecords, vids] = prepared(db, censusSql).raw(true).get(p) as [number, string];
  const read = vids === '[]' ? [] : (JSON.parse(prepared(db, recordsSql).pluck().get({ vids }) as string) as unknown[][]).map((v) => fromRow<BoardRecord>(SPECS.record, v));
  return { content: { records: read, cells, amendments }, plainValued, plainRecords };
}

// Counts for the console's recover previews, in SQL: on a module of 10,000 records most of what a
// restore or a rollback plans is one step per cell, the same step for every cell of a plain column
// (no relation, no settings naming other columns). The preview plans the records, the structure and
// the cells that need looking at (store/read/module-window.ts reads them) with the very same planners,
// and counts the plain cells here instead of building 60,000 objects to count them (ui/recover-*.ts
// say which cells are plain and why the count is the planner's).

import type Database from 'better-sqlite3';

const OPEN = '9223372036854775807';
const IN_JSON = (p: string): string => `(SELECT value FROM json_each(@${p}))`;

/** Records of the module at snapshot n (the cells' owners, as readModuleContent reads them). */
const recordsAt = `SELECT r.id FROM record_versions r WHERE r.module_id = @m AND r.valid_from <= @n AND coalesce(r.valid_to, ${OPEN}) > @n`;

/**
 * Cells at snapshot n holding a value, in `columns`, of the module's records except `exceptRecords`:
 * what a restore of the module creates for the plain columns (each one createCell step).
 */
export function countValuedCellsAt(db: Database.Database, moduleId: string, n: number, columns: readonly string[], exceptRecords: readonly string[]): number {
  if (!columns.length) return 0;
  return db
    .prepare(
      `SELECT count(*) FROM cell_versions c
        WHERE c.record_id IN (${recordsAt}) AND c.valid_from <= @n AND coalesce(c.valid_to, ${OPEN}) > @n
          AND c.value IS NOT NULL AND c.column_id IN ${IN_JSON('cols')} AND c.record_id NOT IN ${IN_JSON('except')}`,
    )
    .pluck()
    .get({ m: moduleId, n, cols: JSON.stringify(columns), except: JSON.stringify(exceptRecords) }) as number;
}

/** Whether the whole database closed and opened fewer cell versions between s and l than a quarter
 * of `scanned` (the cells a query by the module's records would visit): then the valid_to and
 * valid_from indexes find a window's changed cells faster than the module's records do. */
export function fewChangesIn(db: Database.Database, s: number, l: number, scanned: number): boolean {
  const n = db
    .prepare(`SELECT (SELECT count(*) FROM cell_versions WHERE valid_to > @s AND valid_to <= @l) + (SELECT count(*) FROM cell_versions WHERE valid_from > @s AND valid_from <= @l AND valid_from > 0)`)
    .pluck()
    .get({ s, l }) as number;
  return n * 4 < scanned;
}

/** One cell a rollback puts back: the live value (at l) and the one at s; `op` as planned. */
export interface PlainCellWrite {
  /** The cell at s when there was one (else the one at l). */
  id: string;
  recordId: string;
  columnId: string;
  inBase: boolean;
  base: string | null;
  live: string | null;
  op: 'clearCell' | 'setCell' | 'createCell';
}

/**
 * The cells of `columns` in `records` whose value differs between snapshots s < l (a cell missing on
 * one side holds null): how many per step, and the first `limit` in the rollback planner's order —
 * cells held at s by record then id, then cells only at l by record then id. A changed cell has a
 * version at s closed by l, a version at l opened after s, or both (the window's `changed`).
 */
export function plainCellChanges(
  db: Database.Database,
  s: number,
  l: number,
  records: readonly string[],
  columns: readonly string[],
  limit: number,
): { counts: Record<PlainCellWrite['op'], number>; first: PlainCellWrite[] } {
  const counts = { clearCell: 0, setCell: 0, createCell: 0 };
  if (!records.length || !columns.length) return { counts, first: [] };
  // one row per changed cell: its version at s and its version at l (each at most one), paired by
  // grouping in the index's order (record, column)
  // The changed versions, found by the module's cells (each record's, through the covering index)
  // or — when the whole database changed less in the window than the module holds — by the
  // versions closed and opened in it (the valid_to and valid_from indexes): the same rows either way.
  const byTime = fewChangesIn(db, s, l, records.length * columns.length);
  const mine = `c.record_id IN ${IN_JSON('recs')} AND c.column_id IN ${IN_JSON('cols')}`;
  // (unary + keeps SQLite from seeking by record there: the time indexes lead)
  const filtered = `+c.record_id IN ${IN_JSON('recs')} AND +c.column_id IN ${IN_JSON('cols')}`;
  const changed = byTime
    ? `SELECT c.record_id, c.column_id, c.id, c.value, c.valid_from FROM cell_versions c WHERE c.valid_to > @s AND c.valid_to <= @l AND c.valid_from <= @s AND ${filtered}
       UNION ALL SELECT c.record_id, c.column_id, c.id, c.value, c.valid_from FROM cell_versions c WHERE c.valid_from > @s AND c.valid_from <= @l AND c.valid_from > 0 AND coalesce(c.valid_to, ${OPEN}) > @l AND ${filtered}`
    : `SELECT c.record_id, c.column_id, c.id, c.value, c.valid_from FROM cell_versions c WHERE ${mine}
         AND ((c.valid_from <= @s AND c.valid_to > @s AND c.valid_to <= @l) OR (c.valid_from > @s AND c.valid_from <= @l AND coalesce(c.valid_to, ${OPEN}) > @l))`;
  const pairs = `WITH w AS (
      SELECT c.record_id, c.column_id,
             max(CASE WHEN c.valid_from <= @s THEN c.id END) AS bid, max(CASE WHEN c.valid_from <= @s THEN c.value END) AS base,
             max(CASE WHEN c.valid_from > @s THEN c.id END) AS aid, max(CASE WHEN c.valid_from > @s THEN c.value END) AS live
        FROM (${changed}) c
       GROUP BY c.record_id, c.column_id
      HAVING base IS NOT live),
    o AS (SELECT coalesce(bid, aid) AS id, record_id, column_id, bid IS NOT NULL AS in_base, base, live,
                 CASE WHEN base IS NULL THEN 'clearCell' WHEN aid IS NOT NULL THEN 'setCell' ELSE 'createCell' END AS op FROM w)`;
  const p = { s, l, recs: JSON.stringify(records), cols: JSON.stringify(columns) };
  // the first page, and the count per step over every row (one pass: the window sums see them all)
  const page = db
    .prepare(`${pairs} SELECT id, record_id, column_id, in_base, base, live, op, sum(op = 'clearCell') OVER (), sum(op = 'setCell') OVER (), sum(op = 'createCell') OVER ()
                 FROM o ORDER BY in_base DESC, record_id, id LIMIT @limit`)
    .raw(true)
    .all({ ...p, limit: Math.max(limit, 1) }) as unknown[][];
  const head = page[0];
  if (head) [counts.clearCell, counts.setCell, counts.createCell] = head.slice(7) as number[];
  const first = page.slice(0, Math.max(limit, 0)).map(([id, recordId, columnId, inBase, base, live, op]) => ({ id, recordId, columnId, inBase: inBase === 1, base, live, op }) as PlainCellWrite);
  return { counts, first };
}

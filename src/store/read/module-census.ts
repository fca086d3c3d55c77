// Counts for the console's recover previews, in SQL: on a module of 10,000 records most of what a
// restore or a rollback plans is one step per cell, the same step for every cell of a plain column
// (no relation, no settings naming other columns). The preview plans the records, the structure and
// the cells that need looking at (store/read/module-window.ts reads them) with the very same planners,
// and counts the plain cells here instead of building 60,000 objects to count them (ui/recover-*.ts
// say which cells are plain and why the count is the planner's).

import type Database from 'better-sqlite3';
import { prepared } from './prepared.js';

const OPEN = '9223372036854775807';
/** SQL: a cell version at s closed by l, or one at l opened after s, each half on its index (valid_to, valid_from: a MULTI-INDEX OR),
 * so that the filters after it are set up once. */
export const BY_TIME = `((c.valid_to > @s AND c.valid_to <= @l AND c.valid_from <= @s) OR (c.valid_from > @s AND c.valid_from <= @l AND c.valid_from > 0 AND coalesce(c.valid_to, ${OPEN}) > @l))`;
const IN_JSON = (p: string): string => `(SELECT value FROM json_each(@${p}))`;

/**
 * Cells at snapshot n holding a value, in `columns`, of `records` (records of the module at n): a
 * restore preview subtracts those of the records whose cells it does not create from the module's
 * count (restore-content.ts readRestoreContent).
 */
export function countValuedCellsOf(db: Database.Database, n: number, columns: readonly string[], records: readonly string[]): number {
  if (!columns.length || !records.length) return 0;
  return prepared(db, `SELECT count(*) FROM cell_versions c
        WHERE c.record_id IN ${IN_JSON('recs')} AND c.valid_from <= @n AND coalesce(c.valid_to, ${OPEN}) > @n
          AND c.value IS NOT NULL AND c.column_id IN ${IN_JSON('cols')}`)
    .pluck()
    .get({ n, cols: JSON.stringify(columns), recs: JSON.stringify(records) }) as number;
}

/** Whether the whole database closed and opened fewer cell versions between s and l than an eighth
 * of `scanned` (the cells a query by the module's records would visit): then the valid_to and
 * valid_from indexes find a window's changed cells faster than the module's records do (measured
 * on the bench's module of 10,000 records: even at about a ninth; the census grouped off the
 * record index needs no sort, by time it does). */
export function fewChangesIn(db: Database.Database, s: number, l: number, scanned: number): boolean {
  // each side counted only as far as it matters (a long window's are many)
  const cap = Math.ceil(scanned / 8);
  const n = prepared(db, `SELECT (SELECT count(*) FROM (SELECT 1 FROM cell_versions WHERE valid_to > @s AND valid_to <= @l LIMIT @cap))
            + (SELECT count(*) FROM (SELECT 1 FROM cell_versions WHERE valid_from > @s AND valid_from <= @l AND valid_from > 0 LIMIT @cap))`)
    .pluck()
    .get({ s, l, cap }) as number;
  return n * 8 < scanned;
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
 * The rollback preview's count of plain cells, as SQL over the cell versions `where` selects — the
 * changed versions of the module's records (a version at s closed by l, or one at l opened after s;
 * a changed cell has one or both, each side at most one). Grouped by (record, column), each group
 * marked plain when its column is one of `@pc` and its record none of `@nonPlain`: of the plain
 * groups of `@sel` columns, those whose value differs between snapshots s < l (a cell missing on one
 * side holds null) are counted per step (the first row, kind 0) and the first `@limit` listed in the
 * rollback planner's order — cells held at s by record then id, then cells only at l by record then
 * id (kind 1) —; the groups that are not plain are named (kind 2: record, column) for the caller to
 * read whole. When `where` seeks by record, the versions arrive in (record, column) order and the
 * grouping needs no sort. Read by `censusOf`.
 */
export function censusSql(where: string): string {
  return `WITH g AS MATERIALIZED (
      SELECT record_id, column_id, bid, base, aid, live,
             coalesce(column_id IN ${IN_JSON('pc')}, 0) AND record_id NOT IN ${IN_JSON('nonPlain')} AS plain
        FROM (SELECT c.record_id, c.column_id,
                     max(CASE WHEN c.valid_from <= @s THEN c.id END) AS bid, max(CASE WHEN c.valid_from <= @s THEN c.value END) AS base,
                     max(CASE WHEN c.valid_from > @s THEN c.id END) AS aid, max(CASE WHEN c.valid_from > @s THEN c.value END) AS live
                FROM cell_versions c WHERE ${where}
               GROUP BY c.record_id, c.column_id)),
    o AS (SELECT coalesce(bid, aid) AS id, record_id, column_id, bid IS NOT NULL AS in_base, base, live,
                 CASE WHEN base IS NULL THEN 'clearCell' WHEN aid IS NOT NULL THEN 'setCell' ELSE 'createCell' END AS op
            FROM g WHERE plain AND column_id IN ${IN_JSON('sel')} AND base IS NOT live)
    SELECT 0, sum(op = 'clearCell'), sum(op = 'setCell'), sum(op = 'createCell'), NULL, NULL, NULL, NULL FROM o
    UNION ALL SELECT * FROM (SELECT 1, id, record_id, column_id, in_base, base, live, op FROM o ORDER BY in_base DESC, record_id, id LIMIT @limit)
    UNION ALL SELECT 2, record_id, column_id, NULL, NULL, NULL, NULL, NULL FROM g WHERE NOT plain`;
}

export type PlainCensus = { counts: Record<PlainCellWrite['op'], number>; first: PlainCellWrite[] };

/** censusSql's rows as counts, a first page (up to `limit`) and the groups that are not plain ([record, column]). */
export function censusOf(list: unknown[][], limit: number): PlainCensus & { notPlain: [string, string | null][] } {
  const counts = { clearCell: 0, setCell: 0, createCell: 0 };
  const first: PlainCellWrite[] = [];
  const notPlain: [string, string | null][] = [];
  for (const r of list) {
    if (r[0] === 0) [counts.clearCell, counts.setCell, counts.createCell] = r.slice(1, 4).map((n) => (n as number | null) ?? 0) as [number, number, number];
    else if (r[0] === 2) notPlain.push([r[1] as string, r[2] as string | null]);
    else if (first.length < limit) {
      const [, id, recordId, columnId, inBase, base, live, op] = r;
      first.push({ id, recordId, columnId, inBase: inBase === 1, base, live, op } as PlainCellWrite);
    }
  }
  return { counts, first, notPlain };
}

// Counts for the console's recover previews, in SQL: on a module of 10,000 records most of what a
// restore or a rollback plans is one step per cell, the same step for every cell of a plain column
// (no relation, no settings naming other columns). The preview plans the records, the structure and
// the cells that need looking at (store/module-window.ts reads them) with the very same planners,
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

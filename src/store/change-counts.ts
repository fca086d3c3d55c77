// What changed per module between two snapshots, counted, for the tripwire: records archived or
// deleted, cells cleared or changed per column, columns, collections and amendments deleted, the
// module itself gone — with the totals as of the earlier snapshot and who the feed says did it.
// Reads only versions closed between the two (the valid_to index), then totals for what they touch.

import type Database from 'better-sqlite3';

export interface ColumnChange {
  columnId: string;
  name: string;
  /** Cells holding a value at the earlier snapshot. */
  before: number;
  changed: number;
  cleared: number;
  deleted: boolean;
}

export interface Actor {
  /** A user id, or `automation:<id>`. */
  id: string;
  name: string;
  rows: number;
}

export interface ModuleChanges {
  workspaceId: string;
  moduleId: string;
  moduleName: string;
  moduleGone: boolean;
  records: { before: number; removed: number };
  amendments: { before: number; deleted: number };
  columns: ColumnChange[];
  collectionsDeleted: { id: string; name: string }[];
  /** Who wrote to the module in between, per the activity feed, most rows first. */
  actors: Actor[];
}

const AT = (a: string, n: string): string => `${a}.valid_from <= ${n} AND (${a}.valid_to IS NULL OR ${a}.valid_to > ${n})`;
const CLOSED = (a: string): string => `${a}.valid_from <= @from AND ${a}.valid_to > @from AND ${a}.valid_to <= @to`;
const NEXT = (t: string, a: string, cond = '1'): string => `EXISTS (SELECT 1 FROM ${t} n WHERE n.id = ${a}.id AND n.valid_from = ${a}.valid_to AND ${cond})`;

export function changeCounts(db: Database.Database, from: number, to: number): ModuleChanges[] {
  const p = { from, to };
  const out = new Map<string, ModuleChanges>();
  const modules = db.prepare(`SELECT m.id, m.workspace_id, m.name FROM module_versions m WHERE ${AT('m', '@from')}`).all(p) as { id: string; workspace_id: string; name: string }[];
  const closedModules = new Set(
    (db.prepare(`SELECT m.id FROM module_versions m WHERE ${CLOSED('m')} AND NOT ${NEXT('module_versions', 'm')}`).pluck().all(p) as string[]),
  );
  const entry = (moduleId: string): ModuleChanges | null => {
    let e = out.get(moduleId);
    if (e) return e;
    const m = modules.find((x) => x.id === moduleId);
    if (!m) return null;
    e = { workspaceId: m.workspace_id, moduleId, moduleName: m.name, moduleGone: closedModules.has(moduleId), records: { before: 0, removed: 0 }, amendments: { before: 0, deleted: 0 }, columns: [], collectionsDeleted: [], actors: [] };
    out.set(moduleId, e);
    return e;
  };
  for (const id of closedModules) entry(id);

  for (const r of db
    .prepare(`SELECT r.module_id AS m, count(*) AS n FROM record_versions r WHERE ${CLOSED('r')} AND r.is_archived = 0 AND NOT ${NEXT('record_versions', 'r', 'n.is_archived = 0')} GROUP BY r.module_id`)
    .all(p) as { m: string; n: number }[]) {
    const e = entry(r.m);
    if (e) e.records.removed = r.n;
  }
  for (const a of db
    .prepare(`SELECT a.module_id AS m, count(*) AS n FROM amendment_versions a WHERE ${CLOSED('a')} AND a.is_deleted = 0 AND NOT ${NEXT('amendment_versions', 'a', 'n.is_deleted = 0')} GROUP BY a.module_id`)
    .all(p) as { m: string | null; n: number }[]) {
    const e = a.m ? entry(a.m) : null;
    if (e) e.amendments.deleted = a.n;
  }
  for (const c of db.prepare(`SELECT c.module_id AS m, c.id, c.name FROM collection_versions c WHERE ${CLOSED('c')} AND NOT ${NEXT('collection_versions', 'c')}`).all(p) as { m: string; id: string; name: string }[]) {
    entry(c.m)?.collectionsDeleted.push({ id: c.id, name: c.name });
  }
  const deletedColumns = new Set(
    db.prepare(`SELECT c.id FROM column_versions c WHERE ${CLOSED('c')} AND NOT ${NEXT('column_versions', 'c')}`).pluck().all(p) as string[],
  );
  // cells holding a value at `from`, closed since: changed when a valued successor follows, else cleared
  const cellRows = db
    .prepare(
      `SELECT r.module_id AS m, v.column_id AS col,
              sum(CASE WHEN ${NEXT('cell_versions', 'v', 'n.value IS NOT NULL AND n.column_id IS v.column_id')} THEN 1 ELSE 0 END) AS changed, count(*) AS total
         FROM cell_versions v JOIN record_versions r ON r.id = v.record_id AND ${AT('r', '@from')}
        WHERE ${CLOSED('v')} AND v.value IS NOT NULL AND v.column_id IS NOT NULL
        GROUP BY r.module_id, v.column_id`,
    )
    .all(p) as { m: string; col: string; changed: number; total: number }[];
  const columnName = db.prepare(`SELECT name FROM column_versions c WHERE c.id = ? AND ${AT('c', '@from')}`).pluck();
  const columnTotal = db.prepare(`SELECT count(*) FROM cell_versions v WHERE v.column_id = ? AND ${AT('v', '@from')} AND v.value IS NOT NULL`).pluck();
  for (const c of cellRows) {
    const e = entry(c.m);
    if (!e) continue;
    e.columns.push({ columnId: c.col, name: (columnName.get(c.col, p) as string | undefined) ?? c.col, before: columnTotal.get(c.col, p) as number, changed: c.changed, cleared: c.total - c.changed, deleted: deletedColumns.has(c.col) });
  }
  if (out.size === 0) return [];

  const recordTotal = db.prepare(`SELECT count(*) FROM record_versions r WHERE r.module_id = ? AND ${AT('r', '@from')} AND r.is_archived = 0`).pluck();
  const noteTotal = db.prepare(`SELECT count(*) FROM amendment_versions a WHERE a.module_id = ? AND ${AT('a', '@from')} AND a.is_deleted = 0`).pluck();
  const actors = db.prepare(
    `SELECT coalesce('automation:' || a.automation_id, a.user_id, '?') AS who, count(*) AS n FROM activity_versions a
      WHERE a.module_id = ? AND a.valid_from > @from AND a.valid_from <= @to GROUP BY who ORDER BY n DESC, who LIMIT 5`,
  );
  const memberName = db.prepare(`SELECT trim(coalesce(first_name, '') || ' ' || coalesce(last_name, '')) AS name, email FROM member_versions m WHERE m.user_id = ? AND ${AT('m', '@to')} LIMIT 1`);
  for (const e of out.values()) {
    e.records.before = recordTotal.get(e.moduleId, p) as number;
    e.amendments.before = noteTotal.get(e.moduleId, p) as number;
    e.actors = (actors.all(e.moduleId, p) as { who: string; n: number }[]).map((a) => {
      if (a.who.startsWith('automation:')) return { id: a.who, name: `automation ${a.who.slice(11)}`, rows: a.n };
      const m = memberName.get(a.who, p) as { name: string; email: string | null } | undefined;
      return { id: a.who, name: m?.name || m?.email || a.who, rows: a.n };
    });
  }
  return [...out.values()];
}

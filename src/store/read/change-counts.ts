// What changed per module between two snapshots, counted, for the tripwire: records archived or
// deleted, cells added, changed or removed per column (counted as the diff and the console count
// them: domain/cell-change.ts), columns, collections and amendments deleted, the module itself gone
// — with the totals as of the earlier snapshot and who the feed says did it, per column too (the
// actors to blame, and when). wbsync's own writes (its restore journal) are never counted.
// Reads only versions opened or closed between the two (the valid_from and valid_to indexes).

import type Database from 'better-sqlite3';
import { cellChange } from '../../domain/cell-change.js';
import type { ColumnChange, ModuleChanges, Writer } from '../port.js';
import { ownWrites, type OwnWrites } from './own-writes.js';

export type { Actor, ColumnChange, ModuleChanges, Writer } from '../port.js';

const AT = (a: string, n: string): string => `${a}.valid_from <= ${n} AND (${a}.valid_to IS NULL OR ${a}.valid_to > ${n})`;
const CLOSED = (a: string): string => `${a}.valid_from <= @from AND ${a}.valid_to > @from AND ${a}.valid_to <= @to`;
const NEXT = (t: string, a: string, cond = '1'): string => `EXISTS (SELECT 1 FROM ${t} n WHERE n.id = ${a}.id AND n.valid_from = ${a}.valid_to AND ${cond})`;

interface CellSide {
  id: string;
  rec: string;
  col: string;
  value: string | null;
  early: number;
  m: string;
}

interface FeedRow {
  m: string | null;
  rec: string | null;
  col: string | null;
  who: string;
  at: string;
  action: string;
  target: string | null;
  ws: string;
}

function windowTimes(db: Database.Database, from: number, to: number): { fromIso: string; toIso: string } {
  const at = db.prepare('SELECT started_at, finished_at FROM snapshot_runs WHERE id = ?');
  const a = at.get(from) as { started_at: string } | undefined;
  const b = at.get(to) as { started_at: string; finished_at: string | null } | undefined;
  return { fromIso: a?.started_at ?? new Date(0).toISOString(), toIso: b?.finished_at ?? new Date().toISOString() };
}

function tally<T extends { who: string; at: string }>(rows: readonly T[], name: (who: string) => string): Writer[] {
  const by = new Map<string, Writer>();
  for (const r of rows) {
    const w = by.get(r.who);
    if (!w) by.set(r.who, { id: r.who, name: name(r.who), rows: 1, from: r.at, to: r.at });
    else {
      w.rows++;
      if (r.at < w.from) w.from = r.at;
      if (r.at > w.to) w.to = r.at;
    }
  }
  return [...by.values()].sort((a, b) => b.rows - a.rows || (a.id < b.id ? -1 : 1));
}

type Between = { from: number; to: number };
type ColumnCount = ColumnChange & { m: string };
/** The change entry of a module that existed at `from`, made on first use (null for any other). */
type EntryOf = (moduleId: string) => ModuleChanges | null;

export function changeCounts(db: Database.Database, from: number, to: number): ModuleChanges[] {
  const p = { from, to };
  const { fromIso, toIso } = windowTimes(db, from, to);
  const own = ownWrites(db, fromIso, toIso);
  const { out, entry } = moduleEntries(db, p, own);
  countRemovals(db, p, own, entry);
  const ownKeys = countColumnChanges(db, p, own, entry);
  if (out.size === 0) return [];
  blameWriters(db, p, own, ownKeys, toIso, [...out.values()]);
  return [...out.values()];
}

/** The modules at `from`, an entry made for each on first use; the modules gone since have theirs
 * already (wbsync's own deletes excepted). */
function moduleEntries(db: Database.Database, p: Between, own: OwnWrites): { out: Map<string, ModuleChanges>; entry: EntryOf } {
  const out = new Map<string, ModuleChanges>();
  const modules = db.prepare(`SELECT m.id, m.workspace_id, m.name FROM module_versions m WHERE ${AT('m', '@from')}`).all(p) as { id: string; workspace_id: string; name: string }[];
  const moduleById = new Map(modules.map((m) => [m.id, m]));
  const closedModules = new Set(db.prepare(`SELECT m.id FROM module_versions m WHERE ${CLOSED('m')} AND NOT ${NEXT('module_versions', 'm')}`).pluck().all(p) as string[]);
  const entry = (moduleId: string): ModuleChanges | null => {
    let e = out.get(moduleId);
    if (e) return e;
    const m = moduleById.get(moduleId);
    if (!m) return null;
    e = { workspaceId: m.workspace_id, moduleId, moduleName: m.name, moduleGone: closedModules.has(moduleId), records: { before: 0, removed: 0 }, amendments: { before: 0, deleted: 0 }, columns: [], collectionsDeleted: [], actors: [], ownWrites: 0 };
    out.set(moduleId, e);
    return e;
  };
  for (const id of closedModules) if (!own.ids.has(id)) entry(id);
  return { out, entry };
}

/** Records archived or deleted, amendments deleted, collections deleted. */
function countRemovals(db: Database.Database, p: Between, own: OwnWrites, entry: EntryOf): void {
  for (const r of db.prepare(`SELECT r.module_id AS m, r.id FROM record_versions r WHERE ${CLOSED('r')} AND r.is_archived = 0 AND NOT ${NEXT('record_versions', 'r', 'n.is_archived = 0')}`).all(p) as { m: string; id: string }[]) {
    const e = entry(r.m);
    if (!e) continue;
    if (own.ids.has(r.id)) e.ownWrites++;
    else e.records.removed++;
  }
  for (const a of db.prepare(`SELECT a.module_id AS m, a.id FROM amendment_versions a WHERE ${CLOSED('a')} AND a.is_deleted = 0 AND NOT ${NEXT('amendment_versions', 'a', 'n.is_deleted = 0')}`).all(p) as { m: string | null; id: string }[]) {
    const e = a.m ? entry(a.m) : null;
    if (!e) continue;
    if (own.ids.has(a.id)) e.ownWrites++;
    else e.amendments.deleted++;
  }
  for (const c of db.prepare(`SELECT c.module_id AS m, c.id, c.name FROM collection_versions c WHERE ${CLOSED('c')} AND NOT ${NEXT('collection_versions', 'c')}`).all(p) as { m: string; id: string; name: string }[]) {
    if (!own.ids.has(c.id)) entry(c.m)?.collectionsDeleted.push({ id: c.id, name: c.name });
  }
}

/** Cells added, changed and removed per column, and the columns deleted, onto their modules'
 * entries; the (record|column) keys of the cells wbsync itself wrote. */
function countColumnChanges(db: Database.Database, p: Between, own: OwnWrites, entry: EntryOf): Set<string> {
  const deletedColumns = db.prepare(`SELECT c.module_id AS m, c.id FROM column_versions c WHERE ${CLOSED('c')} AND NOT ${NEXT('column_versions', 'c')}`).all(p) as { m: string; id: string }[];
  const column = columnCounter(db, p);
  const ownKeys = new Set<string>();
  for (const [key, pair] of cellPairs(db, p)) {
    const kind = cellChange(pair.a, pair.b);
    if (!kind) continue;
    const e = entry(pair.m);
    if (!e) continue;
    if ((pair.a && own.ids.has(pair.a.id)) || (pair.b && own.ids.has(pair.b.id))) {
      e.ownWrites++;
      ownKeys.add(key);
      continue;
    }
    const c = column(pair.m, pair.col);
    if (c) c[kind]++;
  }
  for (const d of deletedColumns) {
    if (own.ids.has(d.id) || !entry(d.m)) continue;
    const c = column(d.m, d.id);
    if (c) c.deleted = true;
  }
  for (const c of column.all()) if (c.added + c.changed + c.removed > 0 || c.deleted) entry(c.m)!.columns.push(c);
  return ownKeys;
}

/** Cells of records and columns that existed at `from`: the version at `from` of each cell closed
 * since, and the version at `to` of each opened since, paired by (record, column) as the diff does. */
function cellPairs(db: Database.Database, p: Between): Map<string, { m: string; col: string; a?: CellSide; b?: CellSide }> {
  const cellSql = (where: string): string =>
    `SELECT v.id, v.record_id AS rec, v.column_id AS col, v.value, (v.valid_from <= @from) AS early, r.module_id AS m
       FROM cell_versions v JOIN record_versions r ON r.id = v.record_id AND ${AT('r', '@from')}
      WHERE v.column_id IS NOT NULL AND ${where}`;
  const sides = [
    ...(db.prepare(cellSql(CLOSED('v'))).all(p) as CellSide[]),
    // (`v.valid_from > 0` names the partial index cell_versions_opened: migration 016)
    ...(db.prepare(cellSql('v.valid_from > 0 AND v.valid_from > @from AND v.valid_from <= @to AND (v.valid_to IS NULL OR v.valid_to > @to)')).all(p) as CellSide[]),
  ];
  const pairs = new Map<string, { m: string; col: string; a?: CellSide; b?: CellSide }>();
  for (const s of sides) {
    const key = `${s.rec}|${s.col}`;
    const pair = pairs.get(key) ?? { m: s.m, col: s.col };
    if (s.early) pair.a = s;
    else pair.b = s;
    pairs.set(key, pair);
  }
  return pairs;
}

/** The count of a column that existed at `from`, made on first use with its total then (null for
 * a column made since: filling a new column is no damage); all() lists them in that order. */
function columnCounter(db: Database.Database, p: Between): ((m: string, col: string) => ColumnCount | null) & { all: () => Iterable<ColumnCount> } {
  const columnAt = db.prepare(`SELECT name FROM column_versions c WHERE c.id = ? AND ${AT('c', '@from')}`).pluck();
  const columnTotal = db.prepare(`SELECT count(*) FROM cell_versions v WHERE v.column_id = ? AND ${AT('v', '@from')}`).pluck();
  const columns = new Map<string, ColumnCount>();
  const column = (m: string, col: string): ColumnCount | null => {
    let c = columns.get(col);
    if (c) return c;
    const name = columnAt.get(col, p) as string | undefined;
    if (name === undefined) return null;
    c = { m, columnId: col, name, before: columnTotal.get(col, p) as number, added: 0, changed: 0, removed: 0, deleted: false, writers: [] };
    columns.set(col, c);
    return c;
  };
  return Object.assign(column, { all: () => columns.values() });
}

/** The totals at `from` of each module with changes, and who the feed rows the passes in between
 * brought say did it, per module and per column (never wbsync's own writes). */
function blameWriters(db: Database.Database, p: Between, own: OwnWrites, ownKeys: ReadonlySet<string>, toIso: string, entries: ModuleChanges[]): void {
  const feed = db
    .prepare(
      `SELECT a.module_id AS m, a.record_id AS rec, a.column_id AS col, coalesce('automation:' || a.automation_id, a.user_id, '?') AS who, a.created_at AS at, a.action, a.target_name AS target, a.workspace_id AS ws
         FROM activity_versions a WHERE a.valid_from > 0 AND a.valid_from > @from AND a.valid_from <= @to`,
    )
    .all(p) as FeedRow[];
  const during = (at: string): boolean => own.runs.some((r) => at >= r.startedAt && at <= (r.finishedAt ?? toIso));
  const mine = (f: FeedRow): boolean => during(f.at) && ((f.rec !== null && (own.ids.has(f.rec) || (f.col !== null && ownKeys.has(`${f.rec}|${f.col}`)))) || (f.m !== null && own.ids.has(f.m)));
  const people = feed.filter((f) => !mine(f));
  const memberName = db.prepare(`SELECT trim(coalesce(first_name, '') || ' ' || coalesce(last_name, '')) AS name, email FROM member_versions m WHERE m.user_id = ? AND ${AT('m', '@to')} LIMIT 1`);
  const nameOf = (who: string): string => {
    if (who.startsWith('automation:')) return `automation ${who.slice(11)}`;
    const m = memberName.get(who, p) as { name: string; email: string | null } | undefined;
    return m?.name || m?.email || who;
  };
  const recordTotal = db.prepare(`SELECT count(*) FROM record_versions r WHERE r.module_id = ? AND ${AT('r', '@from')} AND r.is_archived = 0`).pluck();
  const amendmentTotal = db.prepare(`SELECT count(*) FROM amendment_versions a WHERE a.module_id = ? AND ${AT('a', '@from')} AND a.is_deleted = 0`).pluck();
  for (const e of entries) {
    e.records.before = recordTotal.get(e.moduleId, p) as number;
    e.amendments.before = amendmentTotal.get(e.moduleId, p) as number;
    // the observed service's module_deleted row names no module: matched by its name instead
    const rows = e.moduleGone
      ? people.filter((f) => f.action === 'module_deleted' && f.ws === e.workspaceId && (f.m === e.moduleId || (f.m === null && f.target === e.moduleName)))
      : people.filter((f) => f.m === e.moduleId);
    e.actors = tally(rows, nameOf).slice(0, 5);
    for (const c of e.columns) c.writers = tally(rows.filter((f) => f.col === c.columnId && f.rec !== null), nameOf);
  }
}

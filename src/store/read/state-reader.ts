// Reads the state as of snapshot N back into domain entities: versions with
// valid_from <= N AND (valid_to IS NULL OR valid_to > N).
import type Database from 'better-sqlite3';
import type {
  Activity, Amendment, Automation, BoardRecord, Cell, Collection, Column, ColumnScope, EntityKind,
  Member, Module, ModuleAccess, Workspace,
} from '../../domain/entities.js';
import { SPECS, colList, fromRow } from '../tables/entity-specs.js';
import type { StateReader } from '../port.js';
import { SUB_RECORD_CREATION } from '../../domain/entities.js';

export class SqliteStateReader implements StateReader {
  private readonly cache = new Map<string, Database.Statement>();

  constructor(
    private readonly db: Database.Database,
    readonly snapshotId: number,
  ) {}

  /** A compiled statement answering rows as arrays (compiled once per reader). */
  private statement(sql: string): Database.Statement {
    let stmt = this.cache.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql).raw(true);
      this.cache.set(sql, stmt);
    }
    return stmt;
  }

  private query<T>(kind: EntityKind, where: string, orderBy: string, params: unknown[]): T[] {
    const spec = SPECS[kind];
    const stmt = this.statement(`SELECT ${colList(spec)} FROM ${spec.table}
      WHERE valid_from <= ? AND (valid_to IS NULL OR valid_to > ?) AND (${where}) ORDER BY ${orderBy}`);
    const n = this.snapshotId;
    return (stmt.all(n, n, ...params) as unknown[][]).map((row) => fromRow<T>(spec, row));
  }

  workspaces(): Workspace[] {
    return this.query('workspace', '1', 'id', []);
  }
  members(workspaceId: string): Member[] {
    return this.query('member', 'workspace_id = ?', 'user_id', [workspaceId]);
  }
  modules(workspaceId?: string): Module[] {
    return workspaceId === undefined
      ? this.query('module', '1', 'workspace_id, id', [])
      : this.query('module', 'workspace_id = ?', 'id', [workspaceId]);
  }
  module(moduleId: string): Module | null {
    return this.query<Module>('module', 'id = ?', 'id', [moduleId])[0] ?? null;
  }
  collections(moduleId: string): Collection[] {
    return this.query('collection', 'module_id = ?', 'position IS NULL, position, id', [moduleId]);
  }
  columns(moduleId: string, scope?: ColumnScope): Column[] {
    return scope === undefined
      ? this.query('column', 'module_id = ?', 'scope, position IS NULL, position, id', [moduleId])
      : this.query('column', 'module_id = ? AND scope = ?', 'position IS NULL, position, id', [moduleId, scope]);
  }
  /** Top-level records first (so parents precede sub-records), then by position. */
  records(moduleId: string): BoardRecord[] {
    return this.query('record', 'module_id = ?', 'parent_record_id IS NOT NULL, position IS NULL, position, id', [moduleId]);
  }
  record(recordId: string): BoardRecord | null {
    return this.query<BoardRecord>('record', 'id = ?', 'id', [recordId])[0] ?? null;
  }
  cells(moduleId: string): Cell[] {
    return this.query(
      'cell',
      `record_id IN (SELECT id FROM record_versions WHERE module_id = ? AND valid_from <= ? AND (valid_to IS NULL OR valid_to > ?))`,
      'record_id, id',
      [moduleId, this.snapshotId, this.snapshotId],
    );
  }
  cellsOfRecord(recordId: string): Cell[] {
    return this.query('cell', 'record_id = ?', 'id', [recordId]);
  }
  amendments(moduleId: string): Amendment[] {
    return this.query(
      'amendment',
      `module_id = ? OR record_id IN (SELECT id FROM record_versions WHERE module_id = ? AND valid_from <= ? AND (valid_to IS NULL OR valid_to > ?))`,
      'created_at, id',
      [moduleId, moduleId, this.snapshotId, this.snapshotId],
    );
  }
  amendmentsOfRecord(recordId: string): Amendment[] {
    return this.query('amendment', 'record_id = ?', 'created_at, id', [recordId]);
  }
  contentOfRecords(recordIds: readonly string[]): Map<string, { cells: Cell[]; amendments: Amendment[] }> {
    const out = new Map<string, { cells: Cell[]; amendments: Amendment[] }>();
    if (!recordIds.length) return out;
    const entry = (id: string): { cells: Cell[]; amendments: Amendment[] } => out.get(id) ?? out.set(id, { cells: [], amendments: [] }).get(id)!;
    const ids = [JSON.stringify(recordIds)];
    const among = 'record_id IN (SELECT value FROM json_each(?))';
    // (each record's in the order cellsOfRecord and amendmentsOfRecord give them)
    for (const c of this.query<Cell>('cell', among, 'record_id, id', ids)) entry(c.recordId).cells.push(c);
    for (const a of this.query<Amendment>('amendment', among, 'record_id, created_at, id', ids)) entry(a.recordId).amendments.push(a);
    return out;
  }
  moduleAutomations(moduleId: string): Automation[] {
    return this.query('automation', `module_id = ? AND scope = 'module'`, 'created_at, id', [moduleId]);
  }
  workspaceAutomations(workspaceId: string): Automation[] {
    return this.query('automation', `workspace_id = ? AND scope = 'workspace'`, 'created_at, id', [workspaceId]);
  }
  moduleAccess(workspaceId: string): ModuleAccess[] {
    return this.query('moduleAccess', 'workspace_id = ?', 'user_id, module_id', [workspaceId]);
  }
  activity(workspaceId: string): Activity[] {
    return this.query('activity', 'workspace_id = ?', 'created_at, id', [workspaceId]);
  }
  moduleActivity(workspaceId: string, moduleId: string, since?: string): Activity[] {
    return since === undefined
      ? this.query('activity', 'workspace_id = ? AND module_id = ?', 'created_at, id', [workspaceId, moduleId])
      : this.query('activity', 'workspace_id = ? AND module_id = ? AND created_at >= ?', 'created_at, id', [workspaceId, moduleId, since]);
  }
  recordsEverIn(moduleId: string, collectionIds: readonly string[]): Set<string> {
    if (!collectionIds.length) return new Set();
    const sql = `SELECT DISTINCT id FROM record_versions WHERE module_id = ? AND valid_from <= ? AND collection_id IN (SELECT value FROM json_each(?))`;
    return new Set(this.db.prepare(sql).pluck().all(moduleId, this.snapshotId, JSON.stringify(collectionIds)) as string[]);
  }
  unplacedSubRecords(moduleId: string): Array<{ id: string; collectionId: string | null }> {
    const n = this.snapshotId;
    const rows = this.db
      .prepare(
        `SELECT a.record_id AS id, a.collection_id AS collectionId, a.message AS message FROM activity_versions a
         WHERE a.module_id = ? AND a.action = 'record_created' AND a.valid_from <= ? AND a.record_id IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM record_versions r WHERE r.id = a.record_id AND r.valid_from <= ?)`,
      )
      .all(moduleId, n, n) as Array<{ id: string; collectionId: string | null; message: string | null }>;
    return rows.filter((r) => SUB_RECORD_CREATION.test(r.message ?? '')).map(({ id, collectionId }) => ({ id, collectionId }));
  }
  recordCreations(moduleId: string, recordIds: readonly string[]): Activity[] {
    if (recordIds.length === 0) return [];
    return this.query('activity', `module_id = ? AND action = 'record_created' AND record_id IN (SELECT value FROM json_each(?))`, 'created_at, id', [moduleId, JSON.stringify(recordIds)]);
  }
  anyActivity(): boolean {
    return this.statement('SELECT 1 FROM activity_versions WHERE valid_from <= ? LIMIT 1').get(this.snapshotId) !== undefined;
  }
  activityStoredAt(ids: readonly string[]): Map<string, number> {
    if (ids.length === 0) return new Map();
    const rows = this.statement(
      `SELECT id, min(valid_from) FROM activity_versions WHERE id IN (SELECT value FROM json_each(?)) AND valid_from <= ? GROUP BY id`,
    ).all(JSON.stringify(ids), this.snapshotId) as Array<[string, number]>;
    return new Map(rows);
  }
  recordsStoredAt(moduleId: string): Map<string, number> {
    const n = this.snapshotId;
    const rows = this.statement(
      `SELECT id, valid_from FROM record_versions WHERE module_id = ? AND valid_from <= ? AND (valid_to IS NULL OR valid_to > ?)`,
    ).all(moduleId, n, n) as Array<[string, number]>;
    return new Map(rows);
  }
  creationTimes(workspaceId: string, moduleId: string): Map<string, string> {
    const rows = this.db
      .prepare(
        `SELECT COALESCE(column_id, collection_id) AS id, MIN(created_at) AS at FROM activity_versions
         WHERE workspace_id = ? AND module_id = ? AND action IN ('collection_created', 'column_created') AND valid_from <= ?
           AND COALESCE(column_id, collection_id) IS NOT NULL
         GROUP BY 1`,
      )
      .all(workspaceId, moduleId, this.snapshotId) as Array<{ id: string; at: string }>;
    return new Map(rows.map((r) => [r.id, r.at]));
  }
  moduleSizes(workspaceId: string): Map<string, { records: number; withSubRecords: number; withAmendments: number; collections: number }> {
    const n = this.snapshotId;
    const asOf = `valid_from <= ? AND (valid_to IS NULL OR valid_to > ?)`;
    const rows = this.db
      .prepare(
        `SELECT m.id AS id,
           (SELECT COUNT(*) FROM record_versions r WHERE r.module_id = m.id AND r.${asOf}) AS records,
           (SELECT COUNT(*) FROM record_versions r WHERE r.module_id = m.id AND r.sub_record_count > 0 AND r.${asOf}) AS withSubRecords,
           (SELECT COUNT(*) FROM record_versions r WHERE r.module_id = m.id AND r.amendment_count > 0 AND r.${asOf}) AS withAmendments,
           (SELECT COUNT(*) FROM collection_versions c WHERE c.module_id = m.id AND c.${asOf}) AS collections
         FROM module_versions m WHERE m.workspace_id = ? AND m.${asOf}`,
      )
      .all(n, n, n, n, n, n, n, n, workspaceId, n, n) as Array<{ id: string; records: number; withSubRecords: number; withAmendments: number; collections: number }>;
    return new Map(rows.map(({ id, ...size }) => [id, size]));
  }
}

// Writes versions: an upsert whose content hash is unchanged writes nothing; a change closes the
// current version (valid_to = S) and inserts one valid from S. Closing marks an entity gone.
// A version both opened and closed within snapshot S never existed as of any snapshot, so it is
// rewritten in place (changed again) or deleted (gone) instead of leaving a zero-length interval.
import type Database from 'better-sqlite3';
import type { EntityKind } from '../../domain/entities.js';
import { SPECS, colList, quoteCol, type EntitySpec } from '../tables/entity-specs.js';
import { SearchIndex, isSearchable } from '../tables/fts.js';
import { encodeRow } from '../tables/row-encoding.js';

export interface Tally {
  written: Record<string, number>;
  gone: Record<string, number>;
  unchanged: number;
}

export const emptyTally = (): Tally => ({ written: {}, gone: {}, unchanged: 0 });

interface KindStatements {
  spec: EntitySpec;
  keyIdx: number[];
  current: Database.Statement;
  insert: Database.Statement;
  rewrite: Database.Statement;
  close: Database.Statement;
  drop: Database.Statement;
}

interface CurrentRow {
  vid: number;
  hash: string;
  valid_from: number;
}

export class VersionedWriter {
  private readonly kinds = new Map<EntityKind, KindStatements>();
  private readonly whereCache = new Map<string, Database.Statement>();
  private readonly search: SearchIndex;

  constructor(private readonly db: Database.Database) {
    this.search = new SearchIndex(db);
  }

  private stmts(kind: EntityKind): KindStatements {
    let s = this.kinds.get(kind);
    if (s) return s;
    const spec = SPECS[kind];
    const keyWhere = spec.key.map((k) => `${quoteCol(k)} = ?`).join(' AND ');
    const cols = colList(spec);
    const marks = spec.fields.map(() => '?').join(', ');
    s = {
      spec,
      keyIdx: spec.key.map((k) => spec.fields.findIndex((x) => x.col === k)),
      current: this.db.prepare(`SELECT vid, hash, valid_from FROM ${spec.table} WHERE ${keyWhere} AND valid_to IS NULL`),
      insert: this.db.prepare(`INSERT INTO ${spec.table} (${cols}, hash, valid_from) VALUES (${marks}, ?, ?)`),
      rewrite: this.db.prepare(
        `UPDATE ${spec.table} SET ${spec.fields.map((x) => `${quoteCol(x.col)} = ?`).join(', ')}, hash = ? WHERE vid = ?`,
      ),
      close: this.db.prepare(`UPDATE ${spec.table} SET valid_to = ? WHERE vid = ?`),
      drop: this.db.prepare(`DELETE FROM ${spec.table} WHERE vid = ?`),
    };
    this.kinds.set(kind, s);
    return s;
  }

  /** Writes `entity` as of snapshot S unless its current version has the same content. */
  upsert(snapshotId: number, kind: EntityKind, entity: object, tally: Tally): void {
    const s = this.stmts(kind);
    const { values: row, hash } = encodeRow(kind, s.spec, entity);
    const cur = s.current.get(...s.keyIdx.map((i) => row[i])) as CurrentRow | undefined;
    if (cur && cur.hash === hash) {
      tally.unchanged++;
      return;
    }
    let vid: number;
    if (cur && cur.valid_from === snapshotId) {
      s.rewrite.run(...row, hash, cur.vid);
      vid = cur.vid;
    } else {
      if (cur) {
        s.close.run(snapshotId, cur.vid);
        // the closed version leaves the index (its text must not match any more)
        if (isSearchable(kind)) this.search.remove(kind, cur.vid);
      }
      vid = Number(s.insert.run(...row, hash, snapshotId).lastInsertRowid);
      tally.written[kind] = (tally.written[kind] ?? 0) + 1;
    }
    if (isSearchable(kind)) this.search.put(kind, vid, entity as Record<string, unknown>, cur?.valid_from !== snapshotId);
  }

  /**
   * Marks gone (as of S) every current version of `kind` matching `where` (SQL over the table's
   * columns, `?` params). Returns how many.
   */
  closeWhere(snapshotId: number, kind: EntityKind, where: string, params: unknown[], tally: Tally): number {
    const s = this.stmts(kind);
    const sql = `SELECT vid, valid_from FROM ${s.spec.table} WHERE valid_to IS NULL AND (${where})`;
    let select = this.whereCache.get(sql);
    if (!select) {
      select = this.db.prepare(sql);
      this.whereCache.set(sql, select);
    }
    const rows = select.all(...params) as Array<{ vid: number; valid_from: number }>;
    for (const r of rows) {
      if (r.valid_from === snapshotId) s.drop.run(r.vid);
      else s.close.run(snapshotId, r.vid);
      if (isSearchable(kind)) this.search.remove(kind, r.vid);
    }
    if (rows.length > 0) tally.gone[kind] = (tally.gone[kind] ?? 0) + rows.length;
    return rows.length;
  }

  /** Ids (first key column) of current versions matching `where`. */
  currentIds(kind: EntityKind, where: string, params: unknown[]): string[] {
    const spec = SPECS[kind];
    const sql = `SELECT ${quoteCol(spec.key[0]!)} FROM ${spec.table} WHERE valid_to IS NULL AND (${where})`;
    let select = this.whereCache.get(sql);
    if (!select) {
      select = this.db.prepare(sql).pluck();
      this.whereCache.set(sql, select);
    }
    return select.all(...params) as string[];
  }
}

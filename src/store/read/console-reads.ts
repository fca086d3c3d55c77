// What the web console reads beyond the StateReader: one page of a module's records as of a
// snapshot (LIMIT/OFFSET over the module's versions, never the whole module), cells and
// sub-records of just those records, the modules ever backed up (deleted ones included), the
// modules that changed between two snapshots, full-text matches (cells included), and the file's size.

import { statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import type { Amendment, BoardRecord, Cell } from '../../domain/entities.js';
import { SPECS, colList, fromRow } from '../tables/entity-specs.js';

const OPEN = '9223372036854775807';
const AT = (a: string): string => `${a}.valid_from <= @n AND coalesce(${a}.valid_to, ${OPEN}) > @n`;

export interface KnownModule {
  id: string;
  workspaceId: string;
  name: string;
  /** Newest complete snapshot holding it. */
  lastSnapshot: number;
  /** Not in the latest complete snapshot: deleted (or out of scope) since. */
  gone: boolean;
}

/** Words the full-text index cannot read: the caller's input, not a fault of the database. */
export class SearchTextError extends Error {}

export interface SearchHit {
  kind: 'record' | 'amendment' | 'cell';
  entityId: string;
  recordId: string;
  moduleId: string | null;
  /** A cell's column. */
  columnId: string | null;
  /** The matching text (plain: the caller escapes it). */
  text: string;
}

export interface ChangedModule {
  moduleId: string;
  /** Versions written or closed between the two snapshots that belong to it. */
  versions: number;
  /** Ids of records and cells with a version written or closed in between. */
  records: string[];
  cells: string[];
  /** Records whose amendments changed in between. */
  amendmentRecords: string[];
}

export class ConsoleReads {
  private readonly cache = new Map<string, Database.Statement>();
  constructor(
    readonly db: Database.Database,
    private readonly path: string,
  ) {}

  private stmt(sql: string): Database.Statement {
    let s = this.cache.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.cache.set(sql, s);
    }
    return s;
  }

  /** Top-level records of a module (or one collection of it) as of snapshot n, in board order. */
  recordPage(moduleId: string, n: number, opts: { collectionId?: string; collectionOrder?: readonly string[]; offset: number; limit: number }): { records: BoardRecord[]; total: number } {
    const spec = SPECS.record;
    const where = `r.module_id = @m AND r.parent_record_id IS NULL AND ${AT('r')}${opts.collectionId ? ' AND r.collection_id = @c' : ''}`;
    // collections in board order (a JSON array of ids), then position within each
    const p = { m: moduleId, n, c: opts.collectionId ?? null, limit: opts.limit, offset: opts.offset, order: JSON.stringify(opts.collectionOrder ?? []) };
    const total = this.stmt(`SELECT count(*) FROM record_versions r WHERE ${where}`).pluck().get(p) as number;
    const rows = this.stmt(`SELECT ${colList(spec)} FROM record_versions r WHERE ${where}
       ORDER BY coalesce((SELECT o.key FROM json_each(@order) o WHERE o.value = r.collection_id), 1e9), r.collection_id, r.position IS NULL, r.position, r.id
       LIMIT @limit OFFSET @offset`).raw(true).all(p) as unknown[][];
    return { records: rows.map((r) => fromRow<BoardRecord>(spec, r)), total };
  }

  subRecords(parentId: string, n: number): BoardRecord[] {
    const spec = SPECS.record;
    const rows = this.stmt(`SELECT ${colList(spec)} FROM record_versions r WHERE r.parent_record_id = @p AND ${AT('r')} ORDER BY r.position IS NULL, r.position, r.id`)
      .raw(true)
      .all({ p: parentId, n }) as unknown[][];
    return rows.map((r) => fromRow<BoardRecord>(spec, r));
  }

  /** Cells of the given records as of n (one indexed seek per record). */
  cellsOf(recordIds: readonly string[], n: number): Cell[] {
    const spec = SPECS.cell;
    const s = this.stmt(`SELECT ${colList(spec)} FROM cell_versions v WHERE v.record_id = @r AND ${AT('v')}`).raw(true);
    return recordIds.flatMap((r) => (s.all({ r, n }) as unknown[][]).map((row) => fromRow<Cell>(spec, row)));
  }

  amendmentsOf(recordId: string, n: number): Amendment[] {
    const spec = SPECS.amendment;
    return (this.stmt(`SELECT ${colList(spec)} FROM amendment_versions a WHERE a.record_id = @r AND ${AT('a')} ORDER BY a.created_at, a.id`).raw(true).all({ r: recordId, n }) as unknown[][]).map(
      (row) => fromRow<Amendment>(spec, row),
    );
  }

  /** Every module a complete snapshot holds or held, newest name; `gone` when the latest does not hold it. */
  knownModules(latest: number | null): KnownModule[] {
    const rows = this.stmt(
      `SELECT m.id, m.workspace_id AS ws, m.name, s.id AS snap FROM module_versions m
         JOIN snapshot_runs s ON s.status = 'complete' AND s.id >= m.valid_from AND s.id < coalesce(m.valid_to, ${OPEN})
          AND s.id NOT IN (SELECT snapshot_id FROM snapshot_forgets)
        WHERE s.id = (SELECT max(s2.id) FROM snapshot_runs s2 WHERE s2.status = 'complete' AND s2.id >= m.valid_from AND s2.id < coalesce(m.valid_to, ${OPEN})
                        AND s2.id NOT IN (SELECT snapshot_id FROM snapshot_forgets))`,
    ).all() as { id: string; ws: string; name: string; snap: number }[];
    const best = new Map<string, KnownModule>();
    for (const r of rows) {
      const prev = best.get(r.id);
      if (!prev || r.snap > prev.lastSnapshot) best.set(r.id, { id: r.id, workspaceId: r.ws, name: r.name, lastSnapshot: r.snap, gone: r.snap !== latest });
    }
    return [...best.values()].sort((a, b) => Number(b.gone) - Number(a.gone) || a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  }

  /**
   * What has versions written or closed in (from, to], per module, most first: the records and
   * cells (by id) and the records whose amendments changed; structure (the module, collections, columns,
   * automations) is only counted — the console reads it whole, it is small.
   */
  changedModules(from: number, to: number): ChangedModule[] {
    const p = { from, to };
    const win = (a: string): string => `((${a}.valid_from > @from AND ${a}.valid_from <= @to) OR (${a}.valid_to > @from AND ${a}.valid_to <= @to))`;
    const moduleOfRecord = (col: string): string => `(SELECT r.module_id FROM record_versions r WHERE r.id = ${col} LIMIT 1)`;
    const out = new Map<string, ChangedModule>();
    const entry = (m: string): ChangedModule => {
      let e = out.get(m);
      if (!e) out.set(m, (e = { moduleId: m, versions: 0, records: [], cells: [], amendmentRecords: [] }));
      return e;
    };
    const structure = this.stmt(
      `SELECT m, sum(n) AS n FROM (
         SELECT id AS m, count(*) AS n FROM module_versions v WHERE ${win('v')} GROUP BY 1
         UNION ALL SELECT module_id, count(*) FROM collection_versions v WHERE ${win('v')} GROUP BY 1
         UNION ALL SELECT module_id, count(*) FROM column_versions v WHERE ${win('v')} GROUP BY 1
         UNION ALL SELECT module_id, count(*) FROM automation_versions v WHERE ${win('v')} AND module_id IS NOT NULL GROUP BY 1
       ) GROUP BY m`,
    ).all(p) as { m: string; n: number }[];
    for (const r of structure) entry(r.m).versions += r.n;
    for (const r of this.stmt(`SELECT DISTINCT v.module_id AS m, v.id FROM record_versions v WHERE ${win('v')}`).all(p) as { m: string; id: string }[]) {
      const e = entry(r.m);
      e.records.push(r.id);
      e.versions++;
    }
    for (const r of this.stmt(`SELECT DISTINCT ${moduleOfRecord('v.record_id')} AS m, v.id FROM cell_versions v WHERE ${win('v')}`).all(p) as { m: string | null; id: string }[]) {
      if (r.m === null) continue;
      const e = entry(r.m);
      e.cells.push(r.id);
      e.versions++;
    }
    for (const r of this.stmt(`SELECT coalesce(v.module_id, ${moduleOfRecord('v.record_id')}) AS m, v.record_id AS rec, count(*) AS n FROM amendment_versions v WHERE ${win('v')} GROUP BY 1, 2`).all(p) as { m: string | null; rec: string; n: number }[]) {
      if (r.m === null) continue;
      const e = entry(r.m);
      e.amendmentRecords.push(r.rec);
      e.versions += r.n;
    }
    return [...out.values()].sort((a, b) => b.versions - a.versions || a.moduleId.localeCompare(b.moduleId));
  }

  /** Records (and sub-records) by id as of n; absent ones are left out. */
  recordsById(ids: Iterable<string>, n: number): BoardRecord[] {
    const spec = SPECS.record;
    const s = this.stmt(`SELECT ${colList(spec)} FROM record_versions r WHERE r.id = @id AND ${AT('r')}`).raw(true);
    return [...new Set(ids)].flatMap((id) => (s.all({ id, n }) as unknown[][]).map((row) => fromRow<BoardRecord>(spec, row)));
  }

  cellsById(ids: Iterable<string>, n: number): Cell[] {
    const spec = SPECS.cell;
    const s = this.stmt(`SELECT ${colList(spec)} FROM cell_versions v WHERE v.id = @id AND ${AT('v')}`).raw(true);
    return [...new Set(ids)].flatMap((id) => (s.all({ id, n }) as unknown[][]).map((row) => fromRow<Cell>(spec, row)));
  }

  /**
   * Full-text matches in the index (the newest version of live records, amendments and cells). What
   * a person types is never FTS syntax: every word is a quoted FTS5 string. Text the index cannot
   * read (a NUL, say) is a SearchTextError, never an SQLite error.
   */
  search(text: string, limit: number): SearchHit[] {
    if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text)) throw new SearchTextError('the words contain a control character (such as %00): type letters, digits and punctuation only');
    const words = text.split(/\s+/).filter(Boolean).slice(0, 12).map((w) => `"${w.replace(/"/g, '""')}"`);
    if (!words.length) return [];
    let rows: { kind: SearchHit['kind']; entity_id: string; record_id: string; module_id: string | null; column_id: string | null; text: string }[];
    try {
      rows = this.stmt(
        `SELECT s.kind, s.entity_id, s.record_id, coalesce(s.module_id, (SELECT r.module_id FROM record_versions r WHERE r.id = s.record_id AND r.valid_to IS NULL)) AS module_id,
           CASE s.kind WHEN 'cell' THEN (SELECT c.column_id FROM cell_versions c WHERE c.id = s.entity_id AND c.valid_to IS NULL) END AS column_id, s.text
         FROM (SELECT kind, entity_id, record_id, module_id, text FROM search WHERE search MATCH @q ORDER BY rank LIMIT @limit) s`,
      ).all({ q: words.join(' '), limit }) as typeof rows;
    } catch (e) {
      if (e instanceof Error && (e as { code?: unknown }).code === 'SQLITE_ERROR') throw new SearchTextError(`the search could not read these words (${e.message})`);
      throw e;
    }
    return rows.map((r) => ({ kind: r.kind, entityId: r.entity_id, recordId: r.record_id, moduleId: r.module_id, columnId: r.column_id, text: r.text }));
  }

  /** Open alert episodes (alert_state): what the daemon has announced or counts towards announcing. */
  alertEpisodes(): { key: string; since: string; count: number; announced: boolean; last: string }[] {
    const rows = this.stmt('SELECT key, state FROM alert_state ORDER BY key').all() as { key: string; state: string }[];
    return rows.map((r) => ({ key: r.key, ...(JSON.parse(r.state) as { since: string; count: number; announced: boolean; last: string }) }));
  }

  /** The database file with its write-ahead log, in bytes. */
  fileBytes(): number {
    let total = 0;
    for (const suffix of ['', '-wal']) {
      try {
        total += statSync(`${this.path}${suffix}`).size;
      } catch {
        // no WAL file is fine
      }
    }
    return total;
  }
}

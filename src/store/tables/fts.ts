// Keeps the FTS5 table `search` (migrations/004-search.ts made it, 021 re-keyed it) in step with
// the versioned tables: one row per live record (its name), amendment (its message) and cell (the
// text people typed in it), rowid = vid*4 + 0 (record), 1 (amendment), 2 (cell), so an update is
// a rowid lookup. A cell's module is not stored (the cell row does not carry it): readers take it
// from the record.
import type Database from 'better-sqlite3';
import type { EntityKind } from '../../domain/entities.js';

export const SEARCH_TABLE = 'search';

export type SearchKind = 'record' | 'amendment' | 'cell';

export function isSearchable(kind: EntityKind): kind is SearchKind {
  return kind === 'record' || kind === 'amendment' || kind === 'cell';
}

const KIND_NO: Record<SearchKind, number> = { record: 0, amendment: 1, cell: 2 };
const rowidOf = (kind: SearchKind, vid: number): number => vid * 4 + KIND_NO[kind];

/**
 * The text of a cell worth searching: what people typed or picked (text, long text, email, link,
 * a status or dropdown label, a number, a date). Not the values that are structure — a JSON array
 * (people: user ids) or object (timeline) — nor a checkbox's true/false. null: not indexed.
 */
export function cellSearchText(value: unknown): string | null {
  if (typeof value !== 'string' || value.trim() === '') return null;
  const first = value.trimStart()[0];
  if (first === '[' || first === '{' || value === 'true' || value === 'false') {
    try {
      const data: unknown = JSON.parse(value);
      if (typeof data === 'boolean' || (typeof data === 'object' && data !== null)) return null;
    } catch {
      // not JSON: text someone typed that starts with a bracket
    }
  }
  return value;
}

const CELL_TEXT_FN = 'wbsync_cell_text';

/** Makes cellSearchText callable from SQL on this connection (the rebuild uses it: one rule). */
function registerCellText(db: Database.Database): void {
  db.function(CELL_TEXT_FN, { deterministic: true }, (v: unknown) => cellSearchText(v));
}

export class SearchIndex {
  private readonly insert: Database.Statement;
  private readonly remove_: Database.Statement;

  constructor(db: Database.Database) {
    this.insert = db.prepare(
      `INSERT INTO ${SEARCH_TABLE} (rowid, kind, entity_id, record_id, module_id, text) VALUES (?, ?, ?, ?, ?, ?)`,
    );
    this.remove_ = db.prepare(`DELETE FROM ${SEARCH_TABLE} WHERE rowid = ?`);
  }

  /** Indexes (or re-indexes) the version `vid` of a record, amendment or cell; `fresh`: a version
   * just inserted, which cannot be in the index yet (no delete to try first). */
  put(kind: SearchKind, vid: number, entity: Record<string, unknown>, fresh = false): void {
    const rowid = rowidOf(kind, vid);
    if (!fresh) this.remove_.run(rowid);
    if (kind === 'record') {
      this.insert.run(rowid, kind, entity.id, entity.id, entity.moduleId ?? null, entity.name ?? '');
    } else if (kind === 'amendment') {
      this.insert.run(rowid, kind, entity.id, entity.recordId ?? null, entity.moduleId ?? null, entity.message ?? '');
    } else {
      const text = cellSearchText(entity.value);
      if (text !== null) this.insert.run(rowid, kind, entity.id, entity.recordId ?? null, null, text);
    }
  }

  remove(kind: SearchKind, vid: number): void {
    this.remove_.run(rowidOf(kind, vid));
  }
}

/** What `search` holds when it is in step: (rowid, kind, entity_id, record_id, module_id, text). */
const SOURCE_SQL = `
  SELECT vid * 4 AS rowid, 'record' AS kind, id AS entity_id, id AS record_id, module_id, name AS text FROM record_versions WHERE valid_to IS NULL
  UNION ALL
  SELECT vid * 4 + 1, 'amendment', id, record_id, module_id, message FROM amendment_versions WHERE valid_to IS NULL
  UNION ALL
  SELECT vid * 4 + 2, 'cell', id, record_id, NULL, ${CELL_TEXT_FN}(value) FROM cell_versions WHERE valid_to IS NULL AND ${CELL_TEXT_FN}(value) IS NOT NULL`;

/** Rebuilds `search` from the current versions (the migration that re-keyed it; exported copies). */
export function rebuildSearch(db: Database.Database): void {
  registerCellText(db);
  db.exec(`DELETE FROM ${SEARCH_TABLE}`);
  db.exec(`INSERT INTO ${SEARCH_TABLE} (rowid, kind, entity_id, record_id, module_id, text) ${SOURCE_SQL}`);
}

export interface SearchRow {
  rowid: number;
  kind: string;
  entity_id: string;
  record_id: string | null;
  module_id: string | null;
  text: string;
}

/** The index as it is, and as a rebuild would make it (for checks: the two must agree). */
export function searchRows(db: Database.Database): { held: SearchRow[]; expected: SearchRow[] } {
  registerCellText(db);
  const cols = 'rowid, kind, entity_id, record_id, module_id, text';
  const held = db.prepare(`SELECT ${cols} FROM ${SEARCH_TABLE} ORDER BY rowid`).all() as SearchRow[];
  const expected = db.prepare(`SELECT * FROM (${SOURCE_SQL}) ORDER BY rowid`).all() as SearchRow[];
  return { held, expected };
}

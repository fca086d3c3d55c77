// Keeps the FTS5 table `search` (see migrations/004-search.ts for its columns and a sample query)
// in step with the versioned tables: one row per live record (name) and amendment (message),
// rowid = vid*2 for records and vid*2+1 for amendments, so updates are rowid lookups.
import type Database from 'better-sqlite3';
import type { EntityKind } from '../domain/entities.js';

export const SEARCH_TABLE = 'search';

export function isSearchable(kind: EntityKind): kind is 'record' | 'amendment' {
  return kind === 'record' || kind === 'amendment';
}

const rowidOf = (kind: 'record' | 'amendment', vid: number): number => vid * 2 + (kind === 'amendment' ? 1 : 0);

export class SearchIndex {
  private readonly insert: Database.Statement;
  private readonly remove_: Database.Statement;

  constructor(db: Database.Database) {
    this.insert = db.prepare(
      `INSERT INTO ${SEARCH_TABLE} (rowid, kind, entity_id, record_id, module_id, text) VALUES (?, ?, ?, ?, ?, ?)`,
    );
    this.remove_ = db.prepare(`DELETE FROM ${SEARCH_TABLE} WHERE rowid = ?`);
  }

  /** Indexes (or re-indexes) the version `vid` of a record or amendment. */
  put(kind: 'record' | 'amendment', vid: number, entity: Record<string, unknown>): void {
    const rowid = rowidOf(kind, vid);
    this.remove_.run(rowid);
    if (kind === 'record') {
      this.insert.run(rowid, kind, entity.id, entity.id, entity.moduleId ?? null, entity.name ?? '');
    } else {
      this.insert.run(rowid, kind, entity.id, entity.recordId ?? null, entity.moduleId ?? null, entity.message ?? '');
    }
  }

  remove(kind: 'record' | 'amendment', vid: number): void {
    this.remove_.run(rowidOf(kind, vid));
  }
}

/** Rebuilds `search` from the current versions (used in exported copies). */
export function rebuildSearch(db: Database.Database): void {
  db.exec(`
DELETE FROM ${SEARCH_TABLE};
INSERT INTO ${SEARCH_TABLE} (rowid, kind, entity_id, record_id, module_id, text)
  SELECT vid * 2, 'record', id, id, module_id, name FROM record_versions WHERE valid_to IS NULL;
INSERT INTO ${SEARCH_TABLE} (rowid, kind, entity_id, record_id, module_id, text)
  SELECT vid * 2 + 1, 'amendment', id, record_id, module_id, message FROM amendment_versions WHERE valid_to IS NULL;
`);
}

// Connection settings, applied on every open.
import type Database from 'better-sqlite3';

export const BUSY_TIMEOUT_MS = 5000;
export const WAL_AUTOCHECKPOINT_PAGES = 16_000;

export function applyPragmas(db: Database.Database, readonly: boolean): void {
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  if (!readonly) {
    // WAL: readers (reports, export, verify) never block the writer and vice versa.
    db.pragma('journal_mode = WAL');
    // NORMAL in WAL mode: a kill -9 of wbsync loses nothing committed (the WAL is in the OS
    // cache); a power cut may lose the last few commits but never corrupts the file. That is
    // safe here because each batch's cursor commits with its data: a lost commit takes its
    // cursor with it, so the next pass simply refetches. FULL would fsync every batch for no gain.
    db.pragma('synchronous = NORMAL');
    // keep a burst of large batches from leaving a huge -wal behind after checkpoints
    db.pragma('journal_size_limit = 67108864');
    // Checkpoint when the WAL holds ~62 MB (16,000 pages) rather than SQLite's 4 MB: a full pass
    // rewrites the same index pages batch after batch (ids are random, so every batch touches most
    // leaves of the id indexes), and each checkpoint copies them into the file again. Measured on
    // the large seed's rows written as a full pass writes them: 1,182 → 877 MB written and 655 →
    // 350 MB read back. The WAL stays under journal_size_limit above.
    db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
  }
  // only the validity columns reference snapshots: cheap to check, catches bookkeeping bugs
  db.pragma('foreign_keys = ON');
}

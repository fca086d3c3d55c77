// Connection settings, applied on every open.
import type Database from 'better-sqlite3';

export const BUSY_TIMEOUT_MS = 5000;

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
  }
  // only the validity columns reference snapshots: cheap to check, catches bookkeeping bugs
  db.pragma('foreign_keys = ON');
}

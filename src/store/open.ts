// openStore(): creates or opens the snapshot database owner-only (see file-modes.ts for the
// rule), sets the pragmas, applies pending migrations (read-write only). What is at the path is
// checked first without writing (open-inspect.ts): a folder, a file that is not wbsync's or one a
// newer wbsync wrote is refused as it is, and a read-only open writes nothing — except to build
// back the indexes a full pass that died left out (bulk-fill.ts), when the file can be written.
import path from 'node:path';
import Database from 'better-sqlite3';
import { systemClock, type Clock } from '../domain/clock.js';
import { createPrivateFile, ensureDir, restrictDbFiles, withPrivateUmask } from './file-modes.js';
import { checkSchemaCurrent, migrate } from './migrate.js';
import { inspectDatabase, openReadOnlyConnection, refuseUnusable } from './open-inspect.js';
import { BUSY_TIMEOUT_MS, applyPragmas } from './pragmas.js';
import type { Store } from './port.js';
import { SqliteStore } from './sqlite-store.js';
import { abandonedFills, buildAbandonedIndexes } from './write/bulk-fill.js';
import { toStorageError } from './storage-error.js';

export interface OpenStoreOptions {
  /** Open without writing anything (reports, diff, verify on a copy); the schema must be current. */
  readonly?: boolean;
  clock?: Clock;
}

export function openStore(dbPath: string, opts: OpenStoreOptions = {}): Store {
  const clock = opts.clock ?? systemClock;
  const memory = dbPath === ':memory:';
  const file = memory ? dbPath : path.resolve(dbPath);
  let db: Database.Database | undefined;
  try {
    if (!memory) refuseUnusable(file, inspectDatabase(file), opts.readonly ? 'read' : 'write');
    if (opts.readonly) {
      if (!memory) rebuildAbandonedIndexes(file);
      db = openReadOnlyConnection(file);
      applyPragmas(db, true);
      checkSchemaCurrent(db);
    } else {
      if (!memory) ensureDir(path.dirname(file));
      db = withPrivateUmask(() => {
        if (!memory) createPrivateFile(file);
        const d = new Database(file, { timeout: BUSY_TIMEOUT_MS });
        try {
          // a new file gives pages back as prune frees them (an older one converts at its first prune)
          d.pragma('auto_vacuum = INCREMENTAL');
          applyPragmas(d, false);
          migrate(d, () => clock.now().toISOString());
          buildAbandonedIndexes(d);
        } catch (e) {
          d.close();
          throw e;
        }
        return d;
      });
      if (!memory) restrictDbFiles(file);
    }
  } catch (e) {
    if (db?.open) db.close();
    throw toStorageError(e, `opening database ${file}`);
  }
  return new SqliteStore(db, file, clock);
}

/**
 * Before a read-only open: if a full pass that died left indexes out (bulk-fill.ts), build them back
 * through a short read-write connection. A file that cannot be written (read-only media, another
 * owner) is read as it is: every query is still right, only slower.
 */
function rebuildAbandonedIndexes(file: string): void {
  const peek = openReadOnlyConnection(file);
  let pending: boolean;
  try {
    pending = abandonedFills(peek).length > 0;
  } finally {
    peek.close();
  }
  if (!pending) return;
  try {
    withPrivateUmask(() => {
      const d = new Database(file, { fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
      try {
        applyPragmas(d, false);
        buildAbandonedIndexes(d);
      } finally {
        d.close();
      }
    });
    restrictDbFiles(file);
  } catch {
    // not writable here: read without them
  }
}

// openStore(): creates or opens the snapshot database owner-only (see file-modes.ts for the
// rule), sets the pragmas, applies pending migrations (read-write only).
import path from 'node:path';
import Database from 'better-sqlite3';
import { systemClock, type Clock } from '../domain/clock.js';
import { createPrivateFile, ensureDir, restrictDbFiles, withPrivateUmask } from './file-modes.js';
import { checkSchemaCurrent, migrate } from './migrate.js';
import { BUSY_TIMEOUT_MS, applyPragmas } from './pragmas.js';
import type { Store } from './port.js';
import { SqliteStore } from './sqlite-store.js';
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
    if (opts.readonly) {
      db = new Database(file, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
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

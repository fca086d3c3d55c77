// Turns SQLite failures into WbsyncError('storage') with a hint the user can act on.
import { WbsyncError, isWbsyncError } from '../domain/errors.js';

const HINTS: Record<string, { hint: string; retryable: boolean }> = {
  SQLITE_FULL: { hint: 'disk full: nothing from this batch was written; free space and run again', retryable: false },
  SQLITE_BUSY: { hint: 'another process held the database lock too long; run again when it is done', retryable: true },
  SQLITE_LOCKED: { hint: 'the database is locked by another statement; run again', retryable: true },
  SQLITE_READONLY: { hint: 'the database (or its folder) is not writable by this user, or it was opened read-only', retryable: false },
  SQLITE_CORRUPT: { hint: 'the database file is damaged: run `wbsync verify`, keep a copy, and restore from an export', retryable: false },
  SQLITE_NOTADB: { hint: 'this file is not a wbsync SQLite database; check --db', retryable: false },
  SQLITE_CANTOPEN: { hint: 'cannot open the database file: check --db, that its folder exists and is accessible', retryable: false },
  SQLITE_IOERR: { hint: 'the disk reported an I/O error: check the device and free space, then run again', retryable: true },
  SQLITE_PERM: { hint: 'permission denied on the database file or its folder', retryable: false },
};

/** The SQLite result code family of an error (SQLITE_IOERR_WRITE → SQLITE_IOERR). */
export function sqliteCode(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return undefined;
  return code.split('_').slice(0, 2).join('_');
}

/** Wraps `e` as a storage error ("<action>: <sqlite message>"); WbsyncErrors pass through. */
export function toStorageError(e: unknown, action: string): WbsyncError {
  if (isWbsyncError(e)) return e;
  const family = sqliteCode(e);
  const known = family ? HINTS[family] : undefined;
  const message = e instanceof Error ? e.message : String(e);
  return new WbsyncError('storage', `${action}: ${message}`, {
    hint: known?.hint ?? 'a database operation failed; run `wbsync verify` and report it if it persists',
    retryable: known?.retryable ?? false,
    cause: e,
    details: { sqliteCode: (e as { code?: unknown } | null)?.code },
  });
}

/** Runs `fn`, rethrowing any failure as a storage error. */
export function withStorageErrors<T>(action: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw toStorageError(e, action);
  }
}

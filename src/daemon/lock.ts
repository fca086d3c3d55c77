// One daemon per database: `<db>.lock`, created with O_EXCL, mode 0600, holding the owner's pid.
// A lock whose pid is gone (ESRCH) was left by a killed daemon and is taken over, so a crash never
// blocks the next start; a live pid refuses with WbsyncError 'locked' (exit 2) naming it.

import { closeSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { WbsyncError } from '../domain/errors.js';

export interface LockLogger {
  warn(fields: Record<string, unknown>, msg: string): void;
}

export interface LockOptions {
  pid?: number;
  /** true when `pid` names a running process (injected in tests). */
  isAlive?: (pid: number) => boolean;
  logger?: LockLogger;
  now?: () => number;
}

export interface DbLock {
  readonly path: string;
  readonly pid: number;
  /** Removes the lock file if it is still ours; safe to call twice. */
  release(): void;
}

/** A lock file still being written (empty) is treated as held for this long, then as stale. */
const FRESH_EMPTY_LOCK_MS = 5_000;

export function lockPathFor(dbPath: string): string {
  return `${path.resolve(dbPath)}.lock`;
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to someone else; only ESRCH proves it is gone.
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

function readHolder(file: string): { pid: number | null; ageMs: number } | null {
  try {
    const text = readFileSync(file, 'utf8').trim();
    const ageMs = Date.now() - statSync(file).mtimeMs;
    const pid = /^\d+$/.test(text) ? Number(text) : null;
    return { pid, ageMs };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

function tryCreate(file: string, pid: number): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new WbsyncError('storage', `cannot create the lock file ${file} (${(e as NodeJS.ErrnoException).code ?? 'error'})`, {
      hint: 'the directory of the database must be writable',
      cause: e,
    });
  }
  try {
    writeSync(fd, `${pid}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

export function acquireLock(dbPath: string, opts: LockOptions = {}): DbLock {
  const pid = opts.pid ?? process.pid;
  const isAlive = opts.isAlive ?? isProcessAlive;
  const file = lockPathFor(dbPath);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });

  // Two rounds: the second follows the removal of a stale lock (another starter may win it).
  for (let round = 0; round < 2; round++) {
    if (tryCreate(file, pid)) return makeLock(file, pid);
    const holder = readHolder(file);
    if (holder === null) continue; // removed between our attempt and the read: try again
    const stale =
      holder.pid === null
        ? holder.ageMs > FRESH_EMPTY_LOCK_MS
        : // Our own pid in a lock we did not create: a restarted container (pid 1 again).
          holder.pid === pid || !isAlive(holder.pid);
    if (!stale) throw lockedError(dbPath, file, holder.pid);
    opts.logger?.warn({ lock: file, stalePid: holder.pid }, 'took over a stale lock left by a daemon that is no longer running');
    try {
      unlinkSync(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
  throw lockedError(dbPath, file, readHolder(file)?.pid ?? null);
}

function lockedError(dbPath: string, file: string, pid: number | null): WbsyncError {
  const who = pid === null ? 'another daemon (starting up)' : `another daemon (pid ${pid})`;
  return new WbsyncError('locked', `the database ${dbPath} is locked by ${who}`, {
    hint: `only one daemon may run per database; stop the other one${pid === null ? '' : ` (kill ${pid})`}, or remove ${file} if that process is not a wbsync daemon`,
    details: { lock: file, pid },
  });
}

function makeLock(file: string, pid: number): DbLock {
  let released = false;
  return {
    path: file,
    pid,
    release() {
      if (released) return;
      released = true;
      // Never remove a lock another daemon took over (e.g. after we were declared stale).
      if (readHolder(file)?.pid !== pid) return;
      try {
        unlinkSync(file);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    },
  };
}

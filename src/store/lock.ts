// Database locks held by the kernel, so that taking one is atomic and a killed holder never leaves
// it taken. Node has no flock(): a lock is a small, empty SQLite file held in `BEGIN EXCLUSIVE`
// (fcntl locks, released by the kernel when the process dies; within one process SQLite itself
// refuses a second connection). The lock file is never removed: a new file under the same name
// would be a second lock. Who holds it is written beside it, for messages (lock-holder.ts).
//
// Two locks per database:
//   - 'write' (`<db>.lock`): one writer at a time — a pass (the daemon's or `wbsync sync`), a
//     restore or rollback journal, prune, erase. The daemon takes it per pass, so other writers
//     wait their turn (waitForLock) instead of being refused.
//   - 'daemon' (`<db>.daemon.lock`): one daemon per database, held for the daemon's life.

import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, statSync, truncateSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { WbsyncError } from '../domain/errors.js';
import { FILE_MODE, withPrivateUmask } from './file-modes.js';
import { clearLockHolder, describeHolder, readLockHolder, writeLockHolder, type LockHolder } from './lock-holder.js';

export type LockKind = 'write' | 'daemon';

export interface LockLogger {
  warn(fields: Record<string, unknown>, msg: string): void;
}

export interface LockOptions {
  kind?: LockKind;
  /** What the holder is doing, for others' messages: 'sync', 'daemon pass', 'prune'… */
  command?: string;
  pid?: number;
  /** true when `pid` names a running process (injected in tests). */
  isAlive?: (pid: number) => boolean;
  logger?: LockLogger;
}

export interface DbLock {
  readonly path: string;
  readonly pid: number;
  /** Lets go of the lock; safe to call twice. */
  release(): void;
}

export function lockPathFor(dbPath: string, kind: LockKind = 'write'): string {
  return `${path.resolve(dbPath)}${kind === 'daemon' ? '.daemon.lock' : '.lock'}`;
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

const SQLITE_HEADER = 'SQLite format 3\0';

type Attempt = { held: Database.Database } | { busy: LockHolder | null };

/** A lock file written by wbsync before 0.4 holds a pid as text; SQLite cannot lock it. */
function legacyHolder(file: string, pid: number, isAlive: (pid: number) => boolean): LockHolder | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  if (text.startsWith(SQLITE_HEADER)) return null;
  const old = /^\s*(\d+)\s*$/.exec(text);
  const oldPid = old ? Number(old[1]) : null;
  if (oldPid !== null && oldPid !== pid && isAlive(oldPid)) return { pid: oldPid, command: 'older wbsync', since: '', token: '' };
  // dead or unreadable: emptied in place (an empty file is an empty database), never replaced, so
  // every process keeps locking the same file; emptying an already emptied file changes nothing
  truncateSync(file, 0);
  return null;
}

/**
 * One try at the lock. `busyMs`: how long SQLite's busy handler retries while another connection
 * is mid-way through the same try. Two processes that both hold SQLite's shared lock on a free
 * lock file block each other's step up to exclusive, so with no retry both are refused and
 * nobody holds it; a one-shot acquire retries a moment, a polling wait (which tries again anyway)
 * does not block its event loop.
 */
function attempt(file: string, pid: number, isAlive: (pid: number) => boolean, busyMs = 0): Attempt {
  for (let round = 0; round < 2; round++) {
    let db: Database.Database;
    try {
      db = withPrivateUmask(() => new Database(file, { timeout: busyMs }));
    } catch (e) {
      throw cannotCreate(file, e);
    }
    try {
      // no -journal file beside the lock: nothing is ever written into it
      db.pragma('journal_mode = MEMORY');
      db.exec('BEGIN EXCLUSIVE');
      return { held: db };
    } catch (e) {
      db.close();
      const code = (e as { code?: string }).code;
      if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return { busy: readLockHolder(file) };
      if (code === 'SQLITE_NOTADB' && round === 0) {
        const old = legacyHolder(file, pid, isAlive);
        if (old) return { busy: old };
        continue;
      }
      throw cannotCreate(file, e);
    }
  }
  throw new WbsyncError('storage', `the lock file ${file} is not a lock wbsync can use`, { hint: `nothing but wbsync should write it; if no wbsync runs on this database, remove ${file}` });
}

function cannotCreate(file: string, e: unknown): WbsyncError {
  const dir = path.dirname(file);
  if (!existsSync(dir)) {
    return new WbsyncError('storage', `cannot lock the database: its folder ${dir} does not exist`, {
      hint: 'check --db (or `db` in the configuration); `wbsync sync --full` creates the folder and the database',
      cause: e,
    });
  }
  const reason = (e as { code?: string }).code ?? 'error';
  return new WbsyncError('storage', `cannot create or open the lock file ${file} (${reason})`, {
    hint: `the folder ${dir} must be writable by this user to change the database; read-only commands (verify, snapshots, export, diff) need no lock`,
    cause: e,
  });
}

function holdLock(file: string, db: Database.Database, pid: number, command: string, opts: LockOptions): DbLock {
  const previous = readLockHolder(file);
  const token = randomUUID();
  try {
    // created by an older wbsync or by hand: owner-only like every file of ours (by path: a
    // descriptor of the lock file closed in this process would drop the lock)
    if ((statSync(file).mode & 0o777) !== FILE_MODE) chmodSync(file, FILE_MODE);
    writeLockHolder(file, { pid, command, since: new Date().toISOString(), token });
  } catch (e) {
    db.close();
    throw cannotCreate(file, e);
  }
  if (previous && previous.pid !== pid && !(opts.isAlive ?? isProcessAlive)(previous.pid)) {
    opts.logger?.warn({ lock: file, stalePid: previous.pid, staleCommand: previous.command }, 'took over a stale lock: its holder ended without releasing it');
  }
  let released = false;
  return {
    path: file,
    pid,
    release() {
      if (released) return;
      released = true;
      try {
        clearLockHolder(file, token);
      } finally {
        if (db.open) db.close(); // ends the transaction: the kernel lock goes with it
      }
    },
  };
}

/** A one-shot acquire's patience with a racer that is taking or testing the lock at the same moment. */
const ONE_SHOT_BUSY_MS = 100;

/** Takes the lock now, or refuses (WbsyncError 'locked', exit 2) naming what holds it. */
export function acquireLock(dbPath: string, opts: LockOptions = {}): DbLock {
  const kind = opts.kind ?? 'write';
  const pid = opts.pid ?? process.pid;
  const isAlive = opts.isAlive ?? isProcessAlive;
  const file = lockPathFor(dbPath, kind);
  const a = attempt(file, pid, isAlive, ONE_SHOT_BUSY_MS);
  if ('held' in a) return holdLock(file, a.held, pid, opts.command ?? (kind === 'daemon' ? 'daemon' : 'sync'), opts);
  throw lockedError(dbPath, kind, a.busy, isAlive);
}

/** Whether someone holds the lock now (takes and lets go of it when free). */
export function isLockHeld(dbPath: string, kind: LockKind = 'write'): boolean {
  const file = lockPathFor(dbPath, kind);
  if (!existsSync(file)) return false;
  const a = attempt(file, process.pid, isProcessAlive);
  if ('held' in a) {
    a.held.close();
    return false;
  }
  return true;
}

export interface WaitOptions extends LockOptions {
  /** Give up after this long (default 30 minutes: a full pass of a large account fits). */
  waitMs?: number;
  pollMs?: number;
  signal?: AbortSignal;
  /** Told once when the wait starts, then about every `noticeEveryMs` while it lasts. */
  onWait?: (holder: string, waitedMs: number) => void;
  noticeEveryMs?: number;
}

export const DEFAULT_LOCK_WAIT_MS = 30 * 60_000;

/** Takes the lock, waiting its turn (polling; the event loop stays free) behind another writer. */
export async function waitForLock(dbPath: string, opts: WaitOptions = {}): Promise<DbLock> {
  const kind = opts.kind ?? 'write';
  const pid = opts.pid ?? process.pid;
  const isAlive = opts.isAlive ?? isProcessAlive;
  const file = lockPathFor(dbPath, kind);
  const waitMs = opts.waitMs ?? DEFAULT_LOCK_WAIT_MS;
  const pollMs = opts.pollMs ?? 200;
  const noticeEveryMs = opts.noticeEveryMs ?? 30_000;
  const started = Date.now();
  let lastNotice = -Infinity;
  for (;;) {
    const a = attempt(file, pid, isAlive);
    if ('held' in a) return holdLock(file, a.held, pid, opts.command ?? 'sync', opts);
    const waited = Date.now() - started;
    if (waited >= waitMs || opts.signal?.aborted) {
      throw lockedError(dbPath, kind, a.busy, isAlive, waited);
    }
    if (waited - lastNotice >= noticeEveryMs) {
      lastNotice = waited;
      opts.onWait?.(describeHolder(a.busy, isAlive), waited);
    }
    await new Promise<void>((resolve) => {
      const t = setTimeout(done, Math.min(pollMs, waitMs - waited));
      function done(): void {
        clearTimeout(t);
        opts.signal?.removeEventListener('abort', done);
        resolve();
      }
      opts.signal?.addEventListener('abort', done, { once: true });
    });
  }
}

function lockedError(dbPath: string, kind: LockKind, holder: LockHolder | null, isAlive: (pid: number) => boolean, waitedMs?: number): WbsyncError {
  const who = describeHolder(holder, isAlive);
  const details = { lock: lockPathFor(dbPath, kind), pid: holder && isAlive(holder.pid) ? holder.pid : null, holder: holder?.command ?? null };
  if (kind === 'daemon') {
    return new WbsyncError('locked', `the database ${dbPath} is already served by ${who}`, {
      hint: 'one daemon per database, and that one keeps the backup running; for a pass now, run `wbsync sync` (it takes its turn between the daemon\'s passes)',
      details,
    });
  }
  const waited = waitedMs === undefined ? '' : ` (waited ${Math.round(waitedMs / 1000)} s)`;
  return new WbsyncError('locked', `the database ${dbPath} is being changed by ${who}${waited}`, {
    hint:
      holder?.command === 'older wbsync'
        ? 'an older wbsync still runs on this database: let it finish (or upgrade it too), then run this again'
        : 'one change at a time: run this again when it has finished (`wbsync snapshots` shows what the last pass did)',
    details,
  });
}

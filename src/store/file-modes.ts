// Who may read the database: only its owner. The rule for folders:
//   - a folder wbsync creates (the database's, an export's) is created 0700;
//   - an existing folder is left alone (it may be /tmp, a home directory, a mounted volume that
//     is not ours to change); only the files we create in it are restricted.
// Files: the database and its -wal/-shm are 0600. SQLite's unix VFS gives -wal/-shm the mode of
// the main file, so creating the main file 0600 (and a 077 umask around the open) covers them;
// we still chmod all three after opening for files left by an older or foreign process.
import fs from 'node:fs';
import path from 'node:path';

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

/** Creates the missing folders of `dir` with mode 0700; existing ones are not touched. */
export function ensureDir(dir: string): void {
  const missing: string[] = [];
  let cur = path.resolve(dir);
  while (!fs.existsSync(cur)) {
    missing.unshift(cur);
    const parent = path.dirname(cur);
    if (parent === cur) break;
    cur = parent;
  }
  for (const d of missing) {
    try {
      fs.mkdirSync(d, { mode: DIR_MODE });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    // mkdir's mode is filtered by the umask; make sure the result is exactly 0700
    fs.chmodSync(d, DIR_MODE);
  }
}

/** Runs fn with umask 077 so every file SQLite creates meanwhile starts owner-only. */
export function withPrivateUmask<T>(fn: () => T): T {
  let previous: number | undefined;
  try {
    previous = process.umask(0o077);
  } catch {
    // worker threads cannot change the umask; the explicit chmods below still apply
  }
  try {
    return fn();
  } finally {
    if (previous !== undefined) process.umask(previous);
  }
}

/** Creates `file` empty with mode 0600 if missing (so its -wal/-shm inherit 0600). */
export function createPrivateFile(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, 'wx', FILE_MODE));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
}

/** chmod 0600 the database and whichever of its -wal/-shm/-journal exist. */
export function restrictDbFiles(dbPath: string): void {
  for (const f of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`, `${dbPath}-journal`]) {
    try {
      if ((fs.statSync(f).mode & 0o777) !== FILE_MODE) fs.chmodSync(f, FILE_MODE);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
}

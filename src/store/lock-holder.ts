// Who holds a database lock, for messages: `<lock>-holder`, a small JSON file the holder writes
// after taking the lock (the lock file itself is held by the kernel and never read or written by
// us: closing any descriptor of it in the holding process would drop the lock).

import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';

export interface LockHolder {
  pid: number;
  /** What holds it: 'sync', 'daemon', 'daemon pass', 'prune', 'rollback', 'restore module'… */
  command: string;
  since: string;
  /** Tells this holding apart from an earlier one by the same pid. */
  token: string;
}

export function holderPathFor(lockFile: string): string {
  return `${lockFile}-holder`;
}

export function readLockHolder(lockFile: string): LockHolder | null {
  try {
    const v = JSON.parse(readFileSync(holderPathFor(lockFile), 'utf8')) as Partial<LockHolder>;
    if (typeof v.pid !== 'number' || !Number.isInteger(v.pid) || typeof v.command !== 'string') return null;
    // only our own words: the file could have been written by anyone who can write the folder
    const command = /^[a-z][a-z ]{0,39}$/.test(v.command) ? v.command : 'unknown command';
    return { pid: v.pid, command, since: typeof v.since === 'string' ? v.since : '', token: typeof v.token === 'string' ? v.token : '' };
  } catch {
    return null; // missing (between holders) or half-written by a killed holder
  }
}

export function writeLockHolder(lockFile: string, holder: LockHolder): void {
  const file = holderPathFor(lockFile);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(holder)}\n`, { mode: 0o600 });
  renameSync(tmp, file); // readers never see half a file
}

/** Removes the holder file if it still describes `token`'s holding. */
export function clearLockHolder(lockFile: string, token: string): void {
  if (readLockHolder(lockFile)?.token !== token) return;
  rmSync(holderPathFor(lockFile), { force: true });
}

/** "a `wbsync sync` (pid 4242, since 14:02:11 UTC)", for the messages of a refusal or a wait. */
export function describeHolder(holder: LockHolder | null, alive: (pid: number) => boolean): string {
  if (holder === null || !alive(holder.pid)) return 'another wbsync process (starting up or just finishing)';
  const since = /T(\d\d:\d\d:\d\d)/.exec(holder.since)?.[1];
  const what =
    holder.command === 'daemon'
      ? 'the wbsync daemon'
      : holder.command === 'daemon pass'
        ? "the wbsync daemon's pass"
        : holder.command === 'daemon start'
          ? 'the wbsync daemon (starting: opening the database)'
          : holder.command === 'older wbsync'
            ? 'an older wbsync (a version before this lock format)'
            : `a \`wbsync ${holder.command}\``;
  return `${what} (pid ${holder.pid}${since ? `, since ${since} UTC` : ''})`;
}

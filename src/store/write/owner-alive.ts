// Whether the process that began a running snapshot is still alive: a leaf that the snapshot rows,
// the first fill's deferred indexes, verify and the fleet's copies all ask.
import os from 'node:os';

/** Is the process that began a running snapshot still alive (on this host)? */
export function ownerAlive(pid: number | null, host: string | null): boolean {
  if (pid === null || host !== os.hostname()) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

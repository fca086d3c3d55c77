// The temporary folder an export is written into beside its target, named for its owner
// (`.wbsync-export-<host>.<pid>-XXXXXX`), so that the next export can clear what a killed one
// left: only folders of this naming, owned by this user, of this host, whose process is gone.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DIR_MODE } from '../file-modes.js';

const PREFIX = '.wbsync-export-';
const host = (): string => os.hostname().replace(/[^A-Za-z0-9-]/g, '_').slice(0, 64) || 'host';
const OURS = /^\.wbsync-export-([A-Za-z0-9_-]{1,64})\.(\d{1,10})-[A-Za-z0-9]{6}$/;

function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH'; // EPERM: alive, someone else's
  }
}

/** Removes the export folders in `parent` left by killed exports; returns their names. */
export function clearStaleExportTemps(parent: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(parent);
  } catch {
    return [];
  }
  const removed: string[] = [];
  const uid = typeof process.getuid === 'function' ? process.getuid() : null;
  for (const name of names) {
    const m = OURS.exec(name);
    if (!m || m[1] !== host() || Number(m[2]) === process.pid || !gone(Number(m[2]))) continue;
    const full = path.join(parent, name);
    try {
      const st = fs.lstatSync(full);
      if (!st.isDirectory() || (uid !== null && st.uid !== uid)) continue;
      fs.rmSync(full, { recursive: true, force: true });
      removed.push(name);
    } catch {
      // raced with another export clearing it, or not ours to remove: leave it
    }
  }
  return removed;
}

/** Clears what killed exports left in `parent`, then makes this export's folder (0700). */
export function makeExportTemp(parent: string): string {
  clearStaleExportTemps(parent);
  const dir = fs.mkdtempSync(path.join(parent, `${PREFIX}${host()}.${process.pid}-`));
  fs.chmodSync(dir, DIR_MODE);
  return dir;
}

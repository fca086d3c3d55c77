// Reads of a standalone copy (what `export` makes; an offsite copy once decrypted) by its file, on a
// read-only connection of its own: rows per view, and whether it is a sound wbsync database.

import Database from 'better-sqlite3';
import { WbsyncError } from '../../domain/errors.js';

/** Rows in each of `views` of the copy at `file` (names of the store's own views, never input). */
export function copyRowCounts(file: string, views: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  const copy = new Database(file, { readonly: true });
  try {
    for (const v of views) counts[v] = copy.prepare(`SELECT count(*) FROM ${v}`).pluck().get() as number;
  } finally {
    copy.close();
  }
  return counts;
}

/** SQLite's integrity check, then a read of the snapshot table; `label` names the copy in the error. */
export function checkCopy(file: string, label: string): void {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const check = db.pragma('integrity_check', { simple: true });
    if (check !== 'ok') throw new WbsyncError('storage', `${label} fails SQLite's check: ${String(check)}`);
    db.prepare('SELECT count(*) FROM snapshot_runs').get();
  } finally {
    db.close();
  }
}

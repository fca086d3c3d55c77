// `wbsync export`: a consistent standalone copy whose views show snapshot N.
// VACUUM INTO reads one consistent snapshot of the database (a single read transaction, so a
// writer in another process is no obstacle); the copy is then cut back to N: versions first seen
// after N deleted, versions closed after N reopened, later snapshots, cursors and journals dropped,
// FTS rebuilt, VACUUM so nothing cut remains in free pages. The copy is written 0600 inside a 0700
// temporary folder next to the target and only then linked/renamed into place.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { WbsyncError } from '../../domain/errors.js';
import { SPECS } from '../tables/entity-specs.js';
import { FILE_MODE, ensureDir } from '../file-modes.js';
import { makeExportTemp } from './export-temp.js';
import { rebuildSearch } from '../tables/fts.js';
import { MIGRATIONS } from '../migrations/index.js';
import { toStorageError } from '../storage-error.js';
import { buildDeferredIndexes } from '../write/bulk-fill.js';

export interface ExportOptions {
  /** Replace an existing file at the target (default: refuse). */
  overwrite?: boolean;
}

/** Cuts an opened copy back to snapshot N. Exported for tests. */
export function cutBackTo(copy: Database.Database, n: number): void {
  copy.transaction(() => {
    // a copy taken during a first fill has every index (bulk-fill.ts): nothing runs in a copy
    buildDeferredIndexes(copy);
    for (const m of MIGRATIONS) if (m.exportCleanup) copy.exec(m.exportCleanup);
    for (const spec of Object.values(SPECS)) {
      copy.prepare(`DELETE FROM ${spec.table} WHERE valid_from > ?`).run(n);
      copy.prepare(`UPDATE ${spec.table} SET valid_to = NULL WHERE valid_to > ?`).run(n);
    }
    // forgotten snapshots after N go with the rest; those before N stay forgotten (their rows are
    // anchors the kept versions' intervals name)
    copy.prepare('DELETE FROM snapshot_forgets WHERE snapshot_id > ?').run(n);
    copy.prepare('DELETE FROM snapshot_runs WHERE id > ?').run(n);
    // nothing runs in a copy: a pass left running before N is, there, an interrupted one
    copy.prepare(`UPDATE snapshot_runs SET status = 'failed', owner_pid = NULL, owner_host = NULL WHERE status = 'running'`).run();
    rebuildSearch(copy);
  })();
}

export function exportCopy(db: Database.Database, outPath: string, n: number, opts: ExportOptions = {}): void {
  const target = path.resolve(outPath);
  const refuse = (): WbsyncError =>
    new WbsyncError('usage', `export target already exists: ${target}`, {
      hint: 'choose another --out, or remove the file first (export never overwrites by default)',
    });
  if (!opts.overwrite && fs.existsSync(target)) throw refuse();
  if (path.resolve(db.name) === target) throw new WbsyncError('usage', 'export target is the database itself');
  ensureDir(path.dirname(target));
  const tmpDir = makeExportTemp(path.dirname(target));
  try {
    const tmp = path.join(tmpDir, 'export.db');
    // created empty and 0600 before SQLite writes a byte (VACUUM INTO accepts an empty file)
    fs.closeSync(fs.openSync(tmp, 'wx', FILE_MODE));
    try {
      db.prepare('VACUUM INTO ?').run(tmp);
      const copy = new Database(tmp);
      try {
        copy.pragma('journal_mode = DELETE'); // standalone: a single file, no -wal beside it
        copy.pragma('foreign_keys = ON');
        cutBackTo(copy, n);
        copy.exec('VACUUM');
      } finally {
        copy.close();
      }
    } catch (e) {
      throw toStorageError(e, `exporting snapshot ${n} to ${target}`);
    }
    fs.chmodSync(tmp, FILE_MODE);
    if (opts.overwrite) {
      fs.renameSync(tmp, target);
    } else {
      // link() fails if the target appeared meanwhile: never clobber, even racing another export
      try {
        fs.linkSync(tmp, target);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw refuse();
        if (fs.existsSync(target)) throw refuse();
        fs.renameSync(tmp, target); // filesystems without hard links
      }
    }
  } finally {
    fs.rmSync(tmpDir, { recursive: true, force: true });
  }
}

// `wbsync export --format csv|jsonl`: one file per view, as of complete snapshot N, read in one
// read transaction (a consistent state even while a daemon writes) on a connection of its own.
// Streamed: rows are stepped one at a time and written in chunks, waiting for the stream to drain,
// so memory stays flat whatever the size. Written into a 0700 temporary folder beside the target
// (files 0600, fsynced) and renamed into place only when every file is complete: a crash leaves
// no folder that looks like an export, and the next export clears it (export-temp.ts).
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { WbsyncError } from '../../domain/errors.js';
import { FILE_MODE, ensureDir } from '../file-modes.js';
import { makeExportTemp } from './export-temp.js';
import { openReadOnlyConnection } from '../open-inspect.js';
import { csvLine, jsonLine, type Cell } from './row-text.js';
import { toStorageError } from '../storage-error.js';
import { VIEW_SOURCES, viewAsOfSql } from './view-sources.js';

export type FileFormat = 'csv' | 'jsonl';

export interface ExportedFile {
  view: string;
  file: string;
  rows: number;
  bytes: number;
}

const CHUNK = 1 << 16;

/** Writes every row of `stmt` to `file` through a write stream, honouring backpressure. */
async function writeView(
  stmt: Database.Statement, n: number, columns: readonly string[], format: FileFormat, file: string,
): Promise<{ rows: number; bytes: number }> {
  const out = fs.createWriteStream(file, { flags: 'wx', mode: FILE_MODE, encoding: 'utf8' });
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  failed.catch(() => undefined);
  let rows = 0;
  let buf = format === 'csv' ? csvLine(columns) : '';
  const flush = async (): Promise<void> => {
    const more = out.write(buf);
    buf = '';
    if (!more) await Promise.race([new Promise<void>((r) => out.once('drain', () => r())), failed]);
  };
  try {
    for (const row of stmt.raw(true).iterate({ n }) as IterableIterator<Cell[]>) {
      buf += format === 'csv' ? csvLine(row) : jsonLine(columns, row);
      rows++;
      if (buf.length >= CHUNK) await flush();
    }
    await flush();
    await Promise.race([new Promise<void>((r) => out.end(() => r())), failed]);
  } catch (e) {
    out.destroy(); // its descriptor closed; the caller removes the temporary folder
    throw e;
  }
  const fd = fs.openSync(file, 'r');
  try {
    fs.fsyncSync(fd);
    return { rows, bytes: fs.fstatSync(fd).size };
  } finally {
    fs.closeSync(fd);
  }
}

/** Columns of a view, as the database defines them (the contract's, for the contract views). */
function viewColumns(db: Database.Database, view: string): string[] {
  return (db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(view) as string[]);
}

/**
 * Exports every view as of snapshot `n` (complete: checked by the caller) into the folder `outDir`,
 * which must not exist or be empty.
 */
export async function exportFiles(dbPath: string, outDir: string, n: number, format: FileFormat): Promise<ExportedFile[]> {
  const target = path.resolve(outDir);
  if (fs.existsSync(target) && (!fs.statSync(target).isDirectory() || fs.readdirSync(target).length > 0)) {
    throw new WbsyncError('usage', `export target already exists and is not an empty folder: ${target}`, {
      hint: 'choose another --out (export never overwrites)',
    });
  }
  ensureDir(path.dirname(target));
  const tmpDir = makeExportTemp(path.dirname(target));
  let db: Database.Database;
  try {
    // writes nothing beside the database (it may be on read-only media)
    db = openReadOnlyConnection(dbPath);
  } catch (e) {
    fs.rmSync(tmpDir, { recursive: true, force: true });
    throw toStorageError(e, `exporting snapshot ${n} as ${format} to ${target}`);
  }
  try {
    const files: ExportedFile[] = [];
    db.exec('BEGIN'); // one read transaction: every view from the same state
    try {
      for (const v of VIEW_SOURCES) {
        const columns = viewColumns(db, v.view);
        const file = `${v.view}.${format}`;
        const { rows, bytes } = await writeView(db.prepare(viewAsOfSql(v, columns)), n, columns, format, path.join(tmpDir, file));
        files.push({ view: v.view, file, rows, bytes });
      }
    } finally {
      db.exec('COMMIT');
    }
    fs.renameSync(tmpDir, target); // onto nothing, or onto the empty folder checked above
    const dirFd = fs.openSync(path.dirname(target), 'r');
    try {
      fs.fsyncSync(dirFd);
    } finally {
      fs.closeSync(dirFd);
    }
    return files;
  } catch (e) {
    fs.rmSync(tmpDir, { recursive: true, force: true });
    if (e instanceof WbsyncError) throw e;
    throw toStorageError(e, `exporting snapshot ${n} as ${format} to ${target}`);
  } finally {
    db.close();
  }
}

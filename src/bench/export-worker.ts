// One `export --format` in its own process, so its peak RSS is the export's alone.
// Input: a JSON argument {db, out, format}; output: one JSON line on stdout.

import Database from 'better-sqlite3';
import { exportFiles, type FileFormat } from '../store/export/index.js';

const input = JSON.parse(process.argv[2] ?? '{}') as { db: string; out: string; format: FileFormat };
const db = new Database(input.db, { readonly: true });
const n = db.prepare(`SELECT max(id) FROM snapshot_runs WHERE status = 'complete'`).pluck().get() as number;
db.close();
const rss0 = process.memoryUsage().rss;
const t0 = performance.now();
const files = await exportFiles(input.db, input.out, n, input.format);
const wallMs = performance.now() - t0;
process.stdout.write(`${JSON.stringify({
  rows: files.reduce((k, f) => k + f.rows, 0),
  bytes: files.reduce((k, f) => k + f.bytes, 0),
  wallMs,
  rssBeforeMb: Math.round(rss0 / 1048576),
  peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
})}\n`);

// The reporting side of `npm run bench`: a database with history (a full pass of the large seed,
// then N incremental passes each after 50 mixed writes), each README query and typical view access
// timed on it, and the database's size. Targets (see README): <= 100 ms per query.

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { createHttpClient } from '../api/http-client.js';
import { HISTORY_QUERIES, REPORTING_QUERIES } from '../store/read/index.js';
import { createLogger } from '../config/logger.js';
import type { FileFormat } from '../store/export/index.js';
import { openStore } from '../store/index.js';
import { runPass } from '../sync/pass.js';
import { applyMixedChanges } from './changes.js';
import { startEmulatorChild } from './emulator-child.js';

export interface HistoryBuild {
  passes: number;
  writesPerPass: number;
  fullPassMs: number;
  /** CPU of this process (crawl, hashing, the writer thread) for the full pass */
  fullPassCpuMs: number;
  incrementalMsMean: number;
  /** CPU of this process (syncer + writer thread) per incremental pass */
  incrementalCpuMsMean: number;
}

/** The history database at `dbPath`: reused when it exists (what the build took is then unknown),
 * else built against a large seed of `modules` modules with no injected latency. */
export async function ensureHistoryDb(dbPath: string, passes: number, modules: number, section: string): Promise<HistoryBuild | 'reused'> {
  if (existsSync(dbPath)) return 'reused';
  const emu = await startEmulatorChild(['--seed', 'large', '--modules', String(modules), '--latency-ms', '0']);
  try {
    process.stderr.write(`bench: ${section}: building the history database (full pass then ${passes} incremental passes)...\n`);
    return await buildHistoryDb(emu.baseUrl, emu.apiKey, dbPath, passes, (s) => process.stderr.write(s));
  } finally {
    await emu.stop();
  }
}

/** A full pass, then `passes` incremental ones, each after 50 mixed writes over 5 rotating modules. */
export async function buildHistoryDb(baseUrl: string, apiKey: string, dbPath: string, passes: number, say: (s: string) => void): Promise<HistoryBuild> {
  const client = createHttpClient({ baseUrl, apiKey, concurrency: 8, retries: 5 });
  const store = openStore(dbPath);
  const deps = { client, store, logger: createLogger({ level: 'silent' }) };
  try {
    const f0 = process.cpuUsage();
    let t0 = performance.now();
    await runPass(deps, { full: true, feedSlices: 8 });
    const fullPassMs = performance.now() - t0;
    const fullUsed = process.cpuUsage(f0);
    let wall = 0;
    let cpu = 0;
    for (let i = 0; i < passes; i++) {
      await applyMixedChanges(baseUrl, apiKey, 50, 5, { firstModule: i * 5 });
      const c0 = process.cpuUsage();
      t0 = performance.now();
      const res = await runPass(deps, { feedSlices: 8, maxStalenessMs: 360 * 60_000 });
      if (res.status !== 'complete') throw new Error(`incremental pass ${i + 1} ended ${res.status}`);
      wall += performance.now() - t0;
      const used = process.cpuUsage(c0);
      cpu += (used.user + used.system) / 1000;
      if ((i + 1) % 10 === 0) say(`bench: history pass ${i + 1}/${passes}\n`);
    }
    return {
      passes,
      writesPerPass: 50,
      fullPassMs: Math.round(fullPassMs),
      fullPassCpuMs: Math.round((fullUsed.user + fullUsed.system) / 1000),
      incrementalMsMean: Math.round(wall / Math.max(1, passes)),
      incrementalCpuMsMean: Math.round(cpu / Math.max(1, passes)),
    };
  } finally {
    store.close();
    await client.close();
  }
}

export interface QueryTiming {
  title: string;
  rows: number;
  /** better-sqlite3, rows into JS objects: median of 5 runs after one warm-up */
  medianMs: number;
  maxMs: number;
  /** the sqlite3 shell (.timer, output discarded): median of 5 runs after one warm-up; null without the shell */
  shellMedianMs: number | null;
}

/** Runs `sql` six times in the sqlite3 shell and returns the median of the last five "Run Time: real" figures. */
function timeInShell(dbPath: string, sql: string): number | null {
  const text = `.timer on\n.output /dev/null\n${`${sql.trim().replace(/;$/, '')};\n`.repeat(6)}`;
  const r = spawnSync('sqlite3', ['-readonly', dbPath], { input: text, encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.error || r.status !== 0) return null;
  const runs = [...r.stdout.matchAll(/Run Time: real ([\d.]+)/g)].map((m) => Number(m[1]) * 1000).slice(1).sort((a, b) => a - b);
  return runs.length === 5 ? Math.round(runs[2]! * 10) / 10 : null;
}

/** A parameter as an SQL literal, for the shell. */
const literal = (v: unknown): string => (typeof v === 'number' ? String(v) : `'${String(v).replaceAll("'", "''")}'`);

/** Positional (`?`) or named (`:name`) parameters. */
type Params = unknown[] | Record<string, unknown>;

function timeOne(db: Database.Database, title: string, sql: string, params: Params = []): QueryTiming {
  let i = 0;
  const shellSql = Array.isArray(params)
    ? sql.replace(/\?/g, () => literal(params[i++]))
    : sql.replace(/:(\w+)/g, (_, name: string) => literal(params[name]));
  const stmt = db.prepare(sql);
  const all = (): unknown[] => (Array.isArray(params) ? stmt.all(...params) : stmt.all(params));
  let rows = all().length;
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    rows = all().length;
    runs.push(performance.now() - t0);
  }
  runs.sort((a, b) => a - b);
  const r = (x: number): number => Math.round(x * 10) / 10;
  return { title, rows, medianMs: r(runs[2]!), maxMs: r(runs[4]!), shellMedianMs: timeInShell(db.name, shellSql) };
}

/** Typical view accesses: one record's cells, one module's records, one week of activity. */
function typicalAccesses(db: Database.Database): Array<[string, string, unknown[]]> {
  const one = (sql: string): unknown => db.prepare(sql).pluck().get();
  // the busiest record and module (most versions), and the busiest week of the feed
  const record = one(`SELECT record_id FROM cell_versions GROUP BY record_id ORDER BY count(*) DESC LIMIT 1`);
  const module = one(`SELECT module_id FROM record_versions GROUP BY module_id ORDER BY count(*) DESC LIMIT 1`);
  const week = one(`SELECT substr(created_at, 1, 10) FROM activity_versions ORDER BY created_at DESC LIMIT 1`) as string;
  const from = new Date(Date.parse(`${week}T00:00:00Z`) - 7 * 86_400_000).toISOString();
  return [
    ["a record's cells", 'SELECT * FROM cells WHERE record_id = ?', [record]],
    ["a module's records", 'SELECT * FROM records WHERE module_id = ?', [module]],
    ["a week's activity", 'SELECT * FROM activity WHERE created_at >= ? AND created_at < ?', [from, `${week}T23:59:59.999Z`]],
    ['a record with its sub-records', 'SELECT * FROM records WHERE id = ? OR parent_record_id = ?', [record, record]],
    // README query 5 finds nothing in this seed; the same query with a word its amendments hold
    ["query 5 with a word the seed's amendments hold ('note')", REPORTING_QUERIES[4]!.sql.replace("'pricing OR proposal OR launch'", '?'), ['note']],
  ];
}

/** The history queries' parameters: the record with the most activity, the person with the most,
 * and that person's busiest day. */
function historyParams(db: Database.Database): Record<string, unknown> {
  const one = (sql: string, ...p: unknown[]): unknown => db.prepare(sql).pluck().get(...p);
  const record = one(`SELECT record_id FROM activity_versions WHERE record_id IS NOT NULL GROUP BY record_id ORDER BY count(*) DESC LIMIT 1`);
  const user = one(`SELECT user_id FROM activity_versions WHERE user_id IS NOT NULL GROUP BY user_id ORDER BY count(*) DESC LIMIT 1`);
  const day = one(`SELECT substr(created_at, 1, 10) FROM activity_versions WHERE user_id = ? GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`, user) as string;
  const from = `${day}T00:00:00.000Z`;
  return { record, user, from, to: new Date(Date.parse(from) + 86_400_000).toISOString() };
}

export interface ReportingFigures {
  dbSizeMb: number;
  versions: Record<string, { rows: number; current: number }>;
  queries: QueryTiming[];
  /** History over the activity feed (HISTORY_QUERIES): the busiest record, person and day */
  historyQueries: QueryTiming[];
  accesses: QueryTiming[];
}

export function timeReporting(dbPath: string): ReportingFigures {
  const db = new Database(dbPath, { readonly: true });
  try {
    const versions: ReportingFigures['versions'] = {};
    for (const t of ['record_versions', 'cell_versions', 'activity_versions', 'amendment_versions']) {
      versions[t] = {
        rows: db.prepare(`SELECT count(*) FROM ${t}`).pluck().get() as number,
        current: db.prepare(`SELECT count(*) FROM ${t} WHERE valid_to IS NULL`).pluck().get() as number,
      };
    }
    const size = ['', '-wal'].reduce((n, s) => {
      try {
        return n + statSync(dbPath + s).size;
      } catch {
        return n;
      }
    }, 0);
    const params = historyParams(db);
    return {
      dbSizeMb: Math.round((size / 1024 / 1024) * 10) / 10,
      versions,
      queries: REPORTING_QUERIES.map((q) => timeOne(db, q.title, q.sql)),
      historyQueries: HISTORY_QUERIES.map((q) => timeOne(db, q.title, q.sql, Object.fromEntries([...q.sql.matchAll(/:(\w+)/g)].map((m) => [m[1]!, params[m[1]!]])))),
      accesses: typicalAccesses(db).map(([title, sql, params]) => timeOne(db, title, sql, params)),
    };
  } finally {
    db.close();
  }
}

export interface ExportFigures {
  format: FileFormat;
  rows: number;
  megabytes: number;
  wallMs: number;
  rowsPerSec: number;
  /** of the exporting process (its own), and its RSS before the export began */
  peakRssMb: number;
  rssBeforeMb: number;
}

const EXPORT_WORKER = fileURLToPath(new URL('./export-worker.js', import.meta.url));

/** `export --format` of the latest complete snapshot in its own process: rows per second, end to end (fsync included). */
export function measureExport(dbPath: string, format: FileFormat): ExportFigures {
  const dir = mkdtempSync(join(tmpdir(), 'wbsync-export-bench-'));
  try {
    const out = execFileSync(process.execPath, [EXPORT_WORKER, JSON.stringify({ db: dbPath, out: join(dir, 'out'), format })], { encoding: 'utf8' });
    const r = JSON.parse(out.trim().split('\n').pop()!) as { rows: number; bytes: number; wallMs: number; peakRssMb: number; rssBeforeMb: number };
    return {
      format, rows: r.rows, megabytes: Math.round(r.bytes / 1048576), wallMs: Math.round(r.wallMs),
      rowsPerSec: Math.round((r.rows / r.wallMs) * 1000), peakRssMb: r.peakRssMb, rssBeforeMb: r.rssBeforeMb,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

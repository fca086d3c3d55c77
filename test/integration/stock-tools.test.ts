// The stock tools: every README query and every view, run unchanged in the sqlite3 command-line
// shell (Debian's is 3.40; .ci/run installs it when missing), answer what wbsync's own SQLite
// answers; and `wbsync export --format csv|jsonl` from the command line. No sqlite3 on the PATH
// is a failure, not a skip: users open the database with it.

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPORTING_QUERIES } from '../../src/store/read/index.js';
import { runCli } from '../../src/cli/run.js';
import { VIEW_SOURCES } from '../../src/store/export/index.js';
import { tempDir } from '../helpers/harness.js';

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { stdout: { write: (s) => void (out += s) }, stderr: { write: (s) => void (err += s) }, env: {} });
  return { code, out, err };
}

/** Runs SQL in the sqlite3 shell, read-only, rows as JSON. */
function shell(db: string, sql: string): Array<Record<string, unknown>> {
  const r = spawnSync('sqlite3', ['-readonly', '-bail', '-json', db], { input: sql, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.error) throw new Error(`sqlite3 could not run (${r.error.message}): install it (apt-get install sqlite3); .ci/run does`);
  if (r.status !== 0) throw new Error(`sqlite3 exited ${r.status}: ${r.stderr}`);
  return r.stdout.trim() === '' ? [] : (JSON.parse(r.stdout) as Array<Record<string, unknown>>);
}

/** Equal, numbers to 15 significant digits (the shell prints doubles with %.15g, or close to it). */
function same(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b || Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(a));
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => same(x, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => same((a as any)[k], (b as any)[k]));
  }
  return a === b;
}
const key = (r: unknown): string => JSON.stringify(r, (_k, v) => (typeof v === 'number' ? Number(v.toPrecision(12)) : v));
const sorted = <T>(rows: T[]): T[] => [...rows].sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0));

describe('the stock sqlite3 shell', () => {
  const t = tempDir('wbsync-stock-');
  const dbPath = join(t.dir, 'demo', 'wbsync.db');
  let db: Database.Database;
  beforeAll(async () => {
    const r = await cli(['demo', '--json', '--db', dbPath]);
    expect(r.code, r.err).toBe(0);
    db = new Database(dbPath, { readonly: true });
  }, 120_000);
  afterAll(() => {
    db?.close();
    t.cleanup();
  });

  it('is installed', () => {
    const r = spawnSync('sqlite3', ['-version'], { encoding: 'utf8' });
    expect(r.error, 'sqlite3 is not on the PATH: apt-get install sqlite3 (.ci/run installs it)').toBeUndefined();
    expect(r.stdout).toMatch(/^3\.\d+\.\d+ /);
  });

  it.each(REPORTING_QUERIES.map((q) => [q.title, q.sql]))('answers README query "%s" as wbsync does', (_title, sql) => {
    const want = db.prepare(sql).all();
    expect(want.length).toBeGreaterThan(0);
    const got = shell(dbPath, sql);
    expect(got.length).toBe(want.length);
    const [g, w] = [sorted(got), sorted(want)];
    for (let i = 0; i < w.length; i++) expect(same(g[i], w[i]), `row ${i}: ${key(g[i])} vs ${key(w[i])}`).toBe(true);
  });

  it.each(VIEW_SOURCES.map((v) => v.view))('reads the view %s as wbsync does', (view) => {
    const want = db.prepare(`SELECT * FROM "${view}"`).all();
    const got = shell(dbPath, `SELECT * FROM "${view}";`);
    expect(got.length).toBe(want.length);
    const [g, w] = [sorted(got), sorted(want)];
    for (let i = 0; i < w.length; i++) expect(same(g[i], w[i]), `${view} row ${i}`).toBe(true);
  });

  it('wbsync export --format csv writes one file per view; --format jsonl --snapshot N too', async () => {
    const out = join(t.dir, 'csv');
    const r = await cli(['export', '--db', dbPath, '--format', 'csv', '--out', out, '--json']);
    expect(r.code, r.err).toBe(0);
    const doc = JSON.parse(r.out) as { format: string; files: Array<{ view: string; rows: number }>; rows: number };
    expect(doc.format).toBe('csv');
    expect(readdirSync(out).sort()).toEqual(VIEW_SOURCES.map((v) => `${v.view}.csv`).sort());
    expect(statSync(out).mode & 0o777).toBe(0o700);
    expect(doc.files.find((f) => f.view === 'records')!.rows).toBe(db.prepare('SELECT count(*) FROM records').pluck().get());
    const r2 = await cli(['export', '--db', dbPath, '--format', 'jsonl', '--out', join(t.dir, 'jsonl-1'), '--snapshot', '1']);
    expect(r2.code, r2.err).toBe(0);
    expect(r2.out).toMatch(/exported snapshot 1 .* 13 jsonl files/);
  });

  it('should error and not write if --format or --out is wrong, exit 2', async () => {
    const bad = await cli(['export', '--db', dbPath, '--format', 'xml', '--out', join(t.dir, 'xml')]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("--format must be one of sqlite, csv, jsonl, got 'xml'");
    expect(existsSync(join(t.dir, 'xml'))).toBe(false);
    const noOut = await cli(['export', '--db', dbPath, '--format', 'csv']);
    expect(noOut.code).toBe(2);
    expect(noOut.err).toContain('export needs --out FOLDER');
    const notDone = await cli(['export', '--db', dbPath, '--format', 'jsonl', '--out', join(t.dir, 'never'), '--snapshot', '999']);
    expect(notDone.code).toBe(2);
    expect(existsSync(join(t.dir, 'never'))).toBe(false);
  });
});

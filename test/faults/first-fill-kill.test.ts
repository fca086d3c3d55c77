// kill -9 in the middle of a first `wbsync sync --full` (a fresh database: the feed's and the cells'
// tables are filled with their indexes left out, src/store/write/bulk-fill.ts): the next open —
// a read-only command first — finds every index the migrations define back, and the next sync
// completes.

import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/store/migrate.js';
import { requireBuild, sleep, spawnCli, startEmulatorChild, stopChildren, type ReadyEmulator } from '../helpers/fault-kit.js';
import { tempDir } from '../helpers/harness.js';

type IndexRow = { name: string; tbl_name: string; sql: string };
const indexesOf = (db: Database.Database): IndexRow[] =>
  db.prepare(`SELECT name, tbl_name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY name`).all() as IndexRow[];

function peek<T>(file: string, read: (db: Database.Database) => T): T | null {
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return read(db);
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
}

describe('kill -9 during a first fill', () => {
  let emu: ReadyEmulator;
  let tmp: ReturnType<typeof tempDir>;

  beforeAll(async () => {
    requireBuild();
    tmp = tempDir();
    emu = await startEmulatorChild(['--seed', 'large', '--records', '80', '--modules', '6', '--latency-ms', '25']);
  });
  afterAll(async () => {
    await stopChildren();
    tmp?.cleanup();
  });

  it('leaves no index missing at the next open (read-only first), and the next sync completes', async () => {
    const fresh = new Database(':memory:');
    migrate(fresh, () => new Date().toISOString());
    const want = indexesOf(fresh);
    fresh.close();

    const dbPath = join(tmp.dir, 'wbsync.db');
    const env = { WBSYNC_BASE_URL: emu.baseUrl, WBSYNC_API_KEY: emu.apiKey, WBSYNC_DB: dbPath };
    const victim = spawnCli(['sync', '--full'], env);
    const t0 = Date.now();
    // mid-fill: indexes left out and feed rows written with them out
    const midFill = (): boolean =>
      existsSync(`${dbPath}-wal`) &&
      (peek(dbPath, (db) => {
        const left = db.prepare('SELECT count(*) FROM deferred_indexes').pluck().get() as number;
        const rows = db.prepare('SELECT count(*) FROM activity_versions').pluck().get() as number;
        return left > 0 && rows > 0;
      }) ?? false);
    while (!midFill() && Date.now() - t0 < 30_000) await sleep(10);
    expect(victim.proc.exitCode, `sync finished before the kill: ${victim.out()}`).toBeNull();
    process.kill(victim.pid, 'SIGKILL');
    expect((await victim.exited).signal).toBe('SIGKILL');

    // as the kill left it: indexes missing, listed
    const left = peek(dbPath, (db) => ({ indexes: indexesOf(db).length, deferred: db.prepare('SELECT count(*) FROM deferred_indexes').pluck().get() as number }));
    expect(left!.deferred).toBeGreaterThan(0);
    expect(left!.indexes).toBe(want.length - left!.deferred);

    // a read-only command opens it first: every index is back
    const verify = spawnCli(['verify', '--db', dbPath, '--json']);
    const v = await verify.exited;
    expect(JSON.parse(verify.out()).problems, verify.out()).toEqual([]);
    expect(v.code).toBe(0);
    expect(peek(dbPath, indexesOf)).toEqual(want);
    expect(peek(dbPath, (db) => db.prepare('SELECT count(*) FROM deferred_indexes').pluck().get())).toBe(0);
    for (const t of ['activity_versions', 'cell_versions']) {
      expect(peek(dbPath, (db) => db.pragma(`integrity_check(${t})`, { simple: true }))).toBe('ok');
    }

    // the next pass (not a first fill any more for the feed) completes with every index in place
    const again = spawnCli(['sync', '--full', '--json'], env);
    const a = await again.exited;
    expect(a.code, again.err()).toBe(0);
    expect((JSON.parse(again.out()) as { status: string }).status).toBe('complete');
    expect(peek(dbPath, indexesOf)).toEqual(want);
  }, 120_000);
});

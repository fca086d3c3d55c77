// Errors that used to send an admin the wrong way (issue #34 item 6, the database's part; #32
// item 5's missing folder): each message names the problem and what to do, and nothing is created.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, requireBuild } from '../helpers/fault-kit.js';
import { tempDir } from '../helpers/harness.js';

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  requireBuild();
  tmp = tempDir('wbsync-messages-');
});
afterAll(() => tmp?.cleanup());

/** `wbsync argv` in `cwd` with only the given WBSYNC_* variables. */
function wbsync(cwd: string, argv: string[], extra: Record<string, string> = {}): { code: number | null; err: string; out: string } {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('WBSYNC_')) env[k] = v;
  const r = spawnSync(process.execPath, [CLI, ...argv], { cwd, env: { ...env, ...extra }, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, err: r.stderr, out: r.stdout };
}

function freshDir(name: string): string {
  const d = join(tmp.dir, name);
  mkdirSync(d);
  return d;
}

describe('messages about the database', () => {
  it('`wbsync snapshots` before any sync: there is no database yet — run a full sync or pass --db; nothing created', () => {
    const cwd = freshDir('before-any-sync');
    const r = wbsync(cwd, ['snapshots']);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`wbsync: there is no database at ${join(cwd, 'data', 'wbsync.db')} yet`);
    expect(r.err).toContain('hint: run `wbsync sync --full` to make the first snapshot, or pass --db PATH');
    expect(r.err).not.toMatch(/directory does not exist|report it|internal error|\n\s+at /);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('--db naming a folder: says it is a folder and shows the file to pass, for reads and writes alike', () => {
    const cwd = freshDir('folder');
    const folder = freshDir('a folder');
    for (const argv of [['snapshots'], ['verify'], ['sync'], ['prune', '--keep-last', '1']]) {
      const r = wbsync(cwd, [...argv, '--db', folder], { WBSYNC_BASE_URL: 'http://127.0.0.1:9', WBSYNC_API_KEY: 'k'.repeat(32) });
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err).toContain(`wbsync: the database path ${folder} is a folder, not a database file`);
      expect(r.err).toContain(`hint: pass the database file, e.g. --db '${join(folder, 'wbsync.db')}'`);
      expect(r.err).not.toMatch(/disk I\/O|check the device/);
    }
    expect(readdirSync(folder)).toEqual([]);
  });

  it('a sync that fails for lack of a key creates nothing (no ./data/)', () => {
    const cwd = freshDir('no-key');
    const r = wbsync(cwd, ['sync'], { WBSYNC_BASE_URL: 'http://127.0.0.1:9' });
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/key/i);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('a writer pointed into a folder that does not exist: a clear refusal, not an internal error; nothing created', () => {
    const cwd = freshDir('missing-folder');
    const db = join(cwd, 'nowhere', 'wbsync.db');
    for (const argv of [['prune', '--keep-last', '1'], ['erase', '--lift', 'abcdef123456'], ['rollback', '--module', 'abcdef123456', '--to-snapshot', '1']]) {
      const r = wbsync(cwd, [...argv, '--db', db], { WBSYNC_BASE_URL: 'http://127.0.0.1:9', WBSYNC_API_KEY: 'k'.repeat(32) });
      expect(r.code, `${argv.join(' ')}: ${r.err}`).toBe(2);
      expect(r.err).toContain(`there is no database at ${db} yet`);
      expect(r.err).not.toMatch(/internal error|\n\s+at /);
    }
    expect(existsSync(join(cwd, 'nowhere'))).toBe(false);
  });

  it("`sync --db` on another program's database: refused (exit 2), bytes, mode and journal untouched, no lock file beside it", () => {
    const cwd = freshDir('foreign');
    const file = join(cwd, 'places.db');
    const d = new Database(file);
    d.exec(`CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT); INSERT INTO moz_places (url) VALUES ('https://example.org/')`);
    d.close();
    const sha = () => createHash('sha256').update(readFileSync(file)).digest('hex');
    const before = sha();
    const r = wbsync(cwd, ['sync', '--db', file], { WBSYNC_BASE_URL: 'http://127.0.0.1:9', WBSYNC_API_KEY: 'k'.repeat(32) });
    expect(r.code).toBe(2);
    expect(r.err).toContain(`wbsync: ${file} is a SQLite database but not a wbsync one (it holds moz_places); wbsync left it untouched`);
    expect(sha()).toBe(before);
    expect(readdirSync(cwd)).toEqual(['places.db']);
  });
});

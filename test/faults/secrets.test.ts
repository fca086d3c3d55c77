// The API key never lands anywhere: a canary key is searched for in debug logs, the database,
// its -wal/-shm (kept by a kill -9), an export, and a 401's output. Also the file modes: the
// database and its -wal/-shm are 0600, the folder wbsync created 0700.

import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild, sleep, spawnCli, startEmulatorChild, stopChildren, type ReadyEmulator } from '../helpers/fault-kit.js';
import { tempDir } from '../helpers/harness.js';

const hex = randomBytes(12).toString('hex');
const CANARY = `wbsync-canary-${hex}`;

function hits(haystack: Buffer | string, needles: string[] = [CANARY, hex]): string[] {
  const buf = typeof haystack === 'string' ? Buffer.from(haystack, 'utf8') : haystack;
  const found: string[] = [];
  for (const n of needles) {
    // utf-8 and utf-16le (SQLite may store text in either)
    if (buf.includes(Buffer.from(n, 'utf8')) || buf.includes(Buffer.from(n, 'utf16le'))) found.push(n);
  }
  return found;
}

function mode(path: string): string {
  return (statSync(path).mode & 0o777).toString(8);
}

describe('secrets and file modes (CLI children)', () => {
  let emu: ReadyEmulator;
  let tmp: ReturnType<typeof tempDir>;

  beforeAll(async () => {
    requireBuild();
    tmp = tempDir();
    // some random failures, so that the debug log has retry lines (a clean pass logs little at debug)
    emu = await startEmulatorChild(['--api-key', CANARY, '--seed', 'large', '--records', '60', '--modules', '6', '--latency-ms', '25', '--fail-rate', '0.03']);
    expect(emu.apiKey).toBe(CANARY);
    // positive control for the search: the emulator's own ready line does carry the key
    expect(hits(emu.child.out())).toEqual([CANARY, hex]);
  });
  afterEach(async () => {
    await stopChildren([emu?.child]);
  });
  afterAll(async () => {
    await stopChildren();
    tmp?.cleanup();
  });

  const env = (db: string, key = CANARY) => ({ WBSYNC_BASE_URL: emu.baseUrl, WBSYNC_API_KEY: key, WBSYNC_DB: db });

  it('a debug-logged sync, its database and an export hold no trace of the key; modes 0600/0700', async () => {
    const db = join(tmp.dir, 'ok', 'data', 'wbsync.db');
    const run = spawnCli(['sync', '--full', '--log-level', 'debug'], env(db));
    const res = await run.exited;
    expect(res.code, run.err().slice(-2000)).toBe(0);
    const logs = run.out() + run.err();
    expect(logs).toMatch(/"level":20,.*"msg":"request retry"/); // debug lines were really written
    expect(hits(logs)).toEqual([]);

    expect(mode(db)).toBe('600');
    expect(mode(dirname(db))).toBe('700');
    for (const suffix of ['-wal', '-shm']) if (existsSync(db + suffix)) expect(mode(db + suffix), suffix).toBe('600');
    expect(hits(readFileSync(db))).toEqual([]);

    const out = join(tmp.dir, 'ok', 'export', 'copy.db');
    const exp = spawnCli(['export', '--db', db, '--out', out, '--log-level', 'debug'], env(db));
    const e = await exp.exited;
    expect(e.code, exp.err()).toBe(0);
    expect(hits(exp.out() + exp.err())).toEqual([]);
    expect(mode(out)).toBe('600');
    expect(hits(readFileSync(out))).toEqual([]);
  });

  it('after a kill -9 the -wal and -shm left behind hold no key and are 0600', async () => {
    const db = join(tmp.dir, 'crash', 'data', 'wbsync.db');
    const run = spawnCli(['sync', '--full', '--log-level', 'debug'], env(db));
    const t0 = Date.now();
    // kill once data is in the WAL (waiting on its size, not a fixed time: a loaded machine is slow)
    const walBytes = (): number => (existsSync(`${db}-wal`) ? statSync(`${db}-wal`).size : 0);
    while (walBytes() <= 100_000 && run.proc.exitCode === null && Date.now() - t0 < 20_000) await sleep(10);
    expect(run.proc.exitCode, 'sync ended before the kill').toBeNull();
    process.kill(run.pid, 'SIGKILL');
    expect((await run.exited).signal).toBe('SIGKILL');

    expect(hits(run.out() + run.err())).toEqual([]);
    for (const suffix of ['', '-wal', '-shm']) {
      expect(existsSync(db + suffix), suffix).toBe(true);
      expect(mode(db + suffix), suffix).toBe('600');
      expect(hits(readFileSync(db + suffix)), suffix).toEqual([]);
    }
    expect(statSync(`${db}-wal`).size).toBeGreaterThan(100_000); // the data really is in the WAL
    expect(mode(dirname(db))).toBe('700');
  });

  it('a wrong key (401) is not echoed, in text or JSON output, even at debug level', async () => {
    const wrongHex = randomBytes(12).toString('hex');
    const wrong = `wbsync-canary-wrong-${wrongHex}`;
    const db = join(tmp.dir, 'wrong', 'wbsync.db');
    for (const extra of [[], ['--json']]) {
      const run = spawnCli(['sync', '--full', '--log-level', 'debug', ...extra], env(db, wrong));
      const res = await run.exited;
      expect(res.code, run.err()).toBe(3);
      const all = run.out() + run.err();
      expect(all).toMatch(/key|401|auth/i);
      expect(hits(all, [wrong, wrongHex, CANARY, hex])).toEqual([]);
    }
    if (existsSync(db)) expect(hits(readFileSync(db), [wrong, wrongHex])).toEqual([]);
  });
});

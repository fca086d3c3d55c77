import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isWbsyncError, WbsyncError } from '../domain/errors.js';
import { acquireLock, isLockHeld, isProcessAlive, lockPathFor, waitForLock } from './lock.js';
import { holderPathFor, readLockHolder } from './lock-holder.js';

function failure(fn: () => unknown): WbsyncError {
  try {
    fn();
  } catch (e) {
    if (isWbsyncError(e)) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('database lock', () => {
  let dir: string;
  let db: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wbsync-lock-'));
    db = join(dir, 'wbsync.db');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('should take a free lock that another process is testing at the same moment (both in SQLite shared mode), not refuse', async () => {
    acquireLock(db).release(); // the lock file exists, free
    // another racer mid-attempt: it holds SQLite's shared lock on the file for a moment, which
    // blocks this one's step up to exclusive; with no retry both were refused and nobody held it
    const racer = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads'); const Database = require(workerData.sqlite);
       const x = new Database(workerData.file, { timeout: 0 }); x.exec('BEGIN'); x.prepare('SELECT count(*) FROM sqlite_master').get();
       parentPort.postMessage('shared'); const until = Date.now() + 40; while (Date.now() < until); x.exec('COMMIT'); x.close();`,
      { eval: true, workerData: { sqlite: createRequire(import.meta.url).resolve('better-sqlite3'), file: lockPathFor(db) } },
    );
    await new Promise((r) => racer.once('message', r));
    const lock = acquireLock(db, { command: 'sync' });
    expect(readLockHolder(lock.path)).toMatchObject({ pid: process.pid, command: 'sync' });
    lock.release();
    await new Promise((r) => racer.once('exit', r));
  });

  it('should hold <db>.lock (mode 0600, kept on release) and note who holds it', () => {
    const lock = acquireLock(db, { command: 'prune' });
    expect(lock.path).toBe(lockPathFor(db));
    expect(statSync(lock.path).mode & 0o777).toBe(0o600);
    expect(readLockHolder(lock.path)).toMatchObject({ pid: process.pid, command: 'prune' });
    expect(isLockHeld(db)).toBe(true);
    lock.release();
    lock.release();
    expect(existsSync(lock.path)).toBe(true); // never removed: a new file would be a second lock
    expect(existsSync(holderPathFor(lock.path))).toBe(false);
    expect(isLockHeld(db)).toBe(false);
  });

  it('should refuse a second holder, saying what holds it and never advising to stop it', () => {
    const first = acquireLock(db, { command: 'rollback' });
    const err = failure(() => acquireLock(db, { command: 'sync' }));
    expect(err.code).toBe('locked');
    expect(err.message).toContain(`a \`wbsync rollback\` (pid ${process.pid}`);
    expect(`${err.message} ${err.hint}`).not.toMatch(/kill|stop the/);
    first.release();
    acquireLock(db).release();
  });

  it('should name the daemon, and a daemon lock apart from the write lock', () => {
    const daemon = acquireLock(db, { kind: 'daemon', command: 'daemon' });
    const err = failure(() => acquireLock(db, { kind: 'daemon', command: 'daemon' }));
    expect(err.message).toContain('already served by the wbsync daemon');
    expect(err.hint).toContain('wbsync sync');
    const pass = acquireLock(db, { command: 'daemon pass' }); // the write lock is another lock
    expect(failure(() => acquireLock(db, { command: 'prune' })).message).toContain("the wbsync daemon's pass");
    pass.release();
    daemon.release();
  });

  it('should take over a lock whose holder ended without releasing it, with a log line', () => {
    writeFileSync(lockPathFor(db), '');
    writeFileSync(holderPathFor(lockPathFor(db)), JSON.stringify({ pid: 2 ** 22 + 12345, command: 'sync', since: '', token: 't' }));
    const logged: string[] = [];
    const lock = acquireLock(db, { logger: { warn: (_f, m) => logged.push(m) } });
    expect(logged).toEqual([expect.stringContaining('stale lock')]);
    expect(readLockHolder(lock.path)?.pid).toBe(process.pid);
    lock.release();
  });

  it("should take over an older wbsync's text lock of a gone pid, and refuse one of a live pid", () => {
    writeFileSync(lockPathFor(db), `${2 ** 22 + 12345}\n`);
    acquireLock(db).release();
    expect(readFileSync(lockPathFor(db)).length).toBe(0);
    writeFileSync(lockPathFor(db), `${process.ppid}\n`);
    const err = failure(() => acquireLock(db));
    expect(err.message).toContain(`an older wbsync (a version before this lock format) (pid ${process.ppid}`);
  });

  it('should wait its turn behind another holder, tell what it waits for, and take the lock when it is free', async () => {
    const first = acquireLock(db, { command: 'daemon pass' });
    const told: string[] = [];
    setTimeout(() => first.release(), 300);
    const lock = await waitForLock(db, { command: 'sync', pollMs: 20, onWait: (who) => told.push(who) });
    expect(told).toEqual([expect.stringContaining("the wbsync daemon's pass")]);
    expect(readLockHolder(lock.path)?.command).toBe('sync');
    lock.release();
  });

  it('should give up after the bounded wait, naming the holder and how long it waited', async () => {
    const first = acquireLock(db, { command: 'restore module' });
    await expect(waitForLock(db, { waitMs: 150, pollMs: 20 })).rejects.toThrow(/being changed by a `wbsync restore module` \(pid \d+.*\(waited 0 s\)/);
    first.release();
  });

  it('should say clearly that the folder of the database does not exist', () => {
    const err = failure(() => acquireLock(join(dir, 'missing', 'wbsync.db')));
    expect(err.code).toBe('storage');
    expect(err.message).toContain(`its folder ${join(dir, 'missing')} does not exist`);
  });

  it('should not trust a holder note that names a shell command', () => {
    mkdirSync(join(dir, 'x'));
    writeFileSync(holderPathFor(lockPathFor(db)), JSON.stringify({ pid: process.pid, command: 'sync; rm -rf /', since: '' }));
    expect(readLockHolder(lockPathFor(db))?.command).toBe('unknown command');
  });

  it('should tell a live process from a gone one', () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    expect(isProcessAlive(2 ** 22 + 12345)).toBe(false);
  });
});

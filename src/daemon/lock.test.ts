import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isWbsyncError } from '../domain/errors.js';
import { acquireLock, isProcessAlive, lockPathFor } from './lock.js';

describe('database lock', () => {
  let dir: string;
  let db: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wbsync-lock-'));
    db = join(dir, 'sub', 'wbsync.db');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('should create <db>.lock with the pid, mode 0600, and remove it on release', () => {
    const lock = acquireLock(db, { pid: 4242, isAlive: () => true });
    expect(lock.path).toBe(lockPathFor(db));
    expect(readFileSync(lock.path, 'utf8').trim()).toBe('4242');
    expect(statSync(lock.path).mode & 0o777).toBe(0o600);
    lock.release();
    expect(existsSync(lock.path)).toBe(false);
    lock.release();
  });

  it('should refuse a second holder while the first is alive, naming its pid', () => {
    const first = acquireLock(db, { pid: 1111, isAlive: () => true });
    let err: unknown;
    try {
      acquireLock(db, { pid: 2222, isAlive: (p) => p === 1111 });
    } catch (e) {
      err = e;
    }
    expect(isWbsyncError(err) && err.code).toBe('locked');
    expect((err as Error).message).toContain('pid 1111');
    expect(readFileSync(first.path, 'utf8').trim()).toBe('1111');
    first.release();
  });

  it('should take over a stale lock whose pid is gone, with a log line', () => {
    acquireLock(db, { pid: 1111, isAlive: () => true }); // left behind, never released
    const logged: string[] = [];
    const lock = acquireLock(db, { pid: 2222, isAlive: () => false, logger: { warn: (_f, m) => logged.push(m) } });
    expect(readFileSync(lock.path, 'utf8').trim()).toBe('2222');
    expect(logged).toEqual([expect.stringContaining('stale lock')]);
    lock.release();
  });

  it('should treat its own pid in a lock it did not create as stale (a restarted container is pid 1 again)', () => {
    acquireLock(db, { pid: 1, isAlive: () => true });
    const lock = acquireLock(db, { pid: 1, isAlive: () => true });
    expect(readFileSync(lock.path, 'utf8').trim()).toBe('1');
    lock.release();
  });

  it('should not remove a lock another daemon has taken over', () => {
    const mine = acquireLock(db, { pid: 1111, isAlive: () => true });
    const theirs = acquireLock(db, { pid: 2222, isAlive: () => false });
    mine.release();
    expect(readFileSync(theirs.path, 'utf8').trim()).toBe('2222');
    theirs.release();
  });

  it('should hold an empty, fresh lock as taken (another daemon is writing it) and an old one as stale', () => {
    const acquire = () => acquireLock(db, { pid: 3, isAlive: () => true });
    acquire().release();
    writeFileSync(lockPathFor(db), '');
    expect(acquire).toThrow(/starting up/);
    const old = (Date.now() - 60_000) / 1000;
    utimesSync(lockPathFor(db), old, old);
    acquire().release();
  });

  it('should tell a live process from a gone one', () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    expect(isProcessAlive(2 ** 22 + 12345)).toBe(false);
  });
});

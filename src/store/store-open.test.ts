import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../domain/clock.js';
import { SPECS } from './tables/entity-specs.js';
import { makeTempDir, makeWorkspace } from './fixtures.js';
import { MIGRATIONS } from './migrations/index.js';
import { openStore } from './open.js';
import type { Store } from './port.js';

const mode = (p: string): number => fs.statSync(p).mode & 0o777;

describe('openStore', () => {
  let tmp: ReturnType<typeof makeTempDir>;
  const stores: Store[] = [];
  beforeEach(() => (tmp = makeTempDir()));
  afterEach(() => {
    for (const s of stores.splice(0)) s.close();
    tmp.cleanup();
  });
  const open = (p: string, opts?: Parameters<typeof openStore>[1]): Store => {
    const s = openStore(p, opts);
    stores.push(s);
    return s;
  };

  it('applies every migration once and is idempotent on reopen', () => {
    const file = path.join(tmp.dir, 'a.db');
    const s1 = open(file, { clock: new ManualClock() });
    const versions = () => s1.db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all();
    expect(versions()).toEqual(MIGRATIONS.map((m) => m.version));
    s1.close();
    const s2 = open(file);
    expect(s2.db.prepare('SELECT count(*) FROM schema_migrations').pluck().get()).toBe(MIGRATIONS.length);
    expect(s2.verify().ok).toBe(true);
  });

  it('sets WAL, synchronous NORMAL, busy timeout and foreign keys', () => {
    const s = open(path.join(tmp.dir, 'p.db'));
    expect(s.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(s.db.pragma('synchronous', { simple: true })).toBe(1);
    expect(s.db.pragma('busy_timeout', { simple: true })).toBeGreaterThan(0);
    expect(s.db.pragma('foreign_keys', { simple: true })).toBe(1);
  });

  it('entity specs match the migrated tables column for column', () => {
    const s = open(path.join(tmp.dir, 'c.db'));
    for (const spec of Object.values(SPECS)) {
      const cols = (s.db.prepare(`PRAGMA table_info(${spec.table})`).all() as Array<{ name: string }>).map((c) => c.name);
      const first = spec.fields.filter((f) => f.addedBy === undefined).map((f) => f.col);
      const added = spec.fields.filter((f) => f.addedBy !== undefined).map((f) => f.col);
      expect(cols).toEqual(['vid', ...first, 'hash', 'valid_from', 'valid_to', ...added]);
    }
  });

  it('creates missing folders 0700 and the database, -wal and -shm 0600', async () => {
    const file = path.join(tmp.dir, 'new', 'deeper', 'w.db');
    const s = open(file);
    const snap = s.beginSnapshot('full');
    await s.apply(snap, { upserts: { workspaces: [makeWorkspace('w1')] } });
    expect(mode(path.join(tmp.dir, 'new'))).toBe(0o700);
    expect(mode(path.join(tmp.dir, 'new', 'deeper'))).toBe(0o700);
    for (const f of [file, `${file}-wal`, `${file}-shm`]) {
      expect(fs.existsSync(f)).toBe(true);
      expect(mode(f)).toBe(0o600);
    }
  });

  it('restricts the files even under a permissive umask, and leaves an existing folder alone', () => {
    fs.chmodSync(tmp.dir, 0o755);
    const previous = process.umask(0o000);
    try {
      const file = path.join(tmp.dir, 'u.db');
      open(file);
      for (const f of [file, `${file}-wal`, `${file}-shm`]) if (fs.existsSync(f)) expect(mode(f)).toBe(0o600);
      expect(mode(tmp.dir)).toBe(0o755);
    } finally {
      process.umask(previous);
    }
  });

  it('tightens an existing database file left world-readable', () => {
    const file = path.join(tmp.dir, 'old.db');
    open(file).close();
    fs.chmodSync(file, 0o644);
    open(file);
    expect(mode(file)).toBe(0o600);
  });

  it('opens read-only without writing, and refuses writes with a storage error', () => {
    const file = path.join(tmp.dir, 'ro.db');
    open(file).close();
    const ro = open(file, { readonly: true });
    expect(ro.listSnapshots()).toEqual([]);
    expect(() => ro.beginSnapshot('full')).toThrow(expect.objectContaining({ code: 'storage' }));
  });

  it('refuses a read-only open of a missing file, saying there is no database yet', () => {
    expect(() => openStore(path.join(tmp.dir, 'missing.db'), { readonly: true })).toThrow(
      expect.objectContaining({ code: 'config', message: expect.stringContaining('there is no database at') }),
    );
  });

  it('refuses a database migrated by a newer wbsync', () => {
    const file = path.join(tmp.dir, 'newer.db');
    const s = open(file);
    s.db.prepare(`INSERT INTO schema_migrations VALUES (999, 'future', 'x')`).run();
    s.close();
    expect(() => openStore(file)).toThrow(/newer wbsync|does not know/);
  });

  it('never stores configuration (no place for an API key)', () => {
    const s = open(path.join(tmp.dir, 'k.db'));
    const tables = s.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).pluck().all() as string[];
    expect(tables.filter((t) => !t.startsWith('search_') && /config|setting|secret|key/i.test(t))).toEqual([]);
  });
});

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeAmendment, makeCell, makeModule, makeRecord, makeTempDir, makeWorkspace } from '../fixtures.js';
import { openStore } from '../open.js';
import type { Store } from '../port.js';

describe('export and verify', () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let store: Store;
  let s1: number;
  let s2: number;
  beforeEach(async () => {
    tmp = makeTempDir();
    store = openStore(path.join(tmp.dir, 'main.db'));
    s1 = store.beginSnapshot('full');
    await store.apply(s1, {
      upserts: {
        workspaces: [makeWorkspace('w1')],
        modules: [makeModule('m1', 'w1'), makeModule('m2', 'w1')],
        records: [makeRecord('r1', 'm1', null, { name: 'alpha' }), makeRecord('r2', 'm2', null, { name: 'beta' })],
        cells: [makeCell('x1', 'r1', null)],
        amendments: [makeAmendment('a1', 'r2', { message: 'gamma' })],
      },
      cursor: { workspaceId: 'w1', cursor: '2026-01-01T00:00:00Z' },
    });
    store.finishSnapshot(s1, 'complete', {});
    s2 = store.beginSnapshot('incremental');
    await store.apply(s2, {
      upserts: { records: [makeRecord('r1', 'm1', null, { name: 'alpha two' }), makeRecord('r3', 'm1', null, { name: 'delta' })] },
      gone: [{ kind: 'module', id: 'm2', cascade: true }],
    });
    store.finishSnapshot(s2, 'complete', {});
  });
  afterEach(() => {
    store.close();
    tmp.cleanup();
  });

  const readCopy = <T>(file: string, fn: (db: Database.Database) => T): T => {
    const db = new Database(file, { readonly: true });
    try {
      return fn(db);
    } finally {
      db.close();
    }
  };

  it('exports snapshot N: its views show N, later history and cursors are gone, mode 0600', async () => {
    const s3 = store.beginSnapshot('incremental'); // running: must not leak into the copy
    await store.apply(s3, { upserts: { records: [makeRecord('r9', 'm1', null)] } });
    const out = path.join(tmp.dir, 'exports', 'at-1.db');
    await store.exportTo(out, s1);
    expect(fs.statSync(out).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(out)).mode & 0o777).toBe(0o700);
    expect(fs.readdirSync(path.dirname(out))).toEqual(['at-1.db']); // temp folder cleaned up
    readCopy(out, (db) => {
      expect(db.prepare('SELECT name FROM records ORDER BY id').pluck().all()).toEqual(['alpha', 'beta']);
      expect(db.prepare('SELECT id FROM modules ORDER BY id').pluck().all()).toEqual(['m1', 'm2']);
      expect(db.prepare('SELECT id FROM snapshots').pluck().all()).toEqual([s1]);
      expect(db.prepare('SELECT count(*) FROM cursors').pluck().get()).toBe(0);
      expect(db.prepare('SELECT count(*) FROM record_versions WHERE valid_to IS NOT NULL').pluck().get()).toBe(0);
      expect(db.prepare(`SELECT entity_id FROM search WHERE search MATCH 'gamma OR alpha' ORDER BY entity_id`).pluck().all()).toEqual(['a1', 'r1']);
      expect(db.pragma('journal_mode', { simple: true })).toBe('delete');
    });
    const copy = openStore(out);
    try {
      expect(copy.verify()).toMatchObject({ ok: true, problems: [] });
      expect(copy.stateAt()!.record('r1')!.name).toBe('alpha');
    } finally {
      copy.close();
    }
  });

  it('exports a consistent copy while another connection holds an uncommitted write', async () => {
    const other = new Database(store.path);
    try {
      other.exec('BEGIN IMMEDIATE');
      other.prepare(`UPDATE snapshot_runs SET status = 'failed' WHERE id = ?`).run(s2);
      const out = path.join(tmp.dir, 'during-write.db');
      await store.exportTo(out);
      readCopy(out, (db) => expect(db.prepare('SELECT status FROM snapshots WHERE id = ?').pluck().get(s2)).toBe('complete'));
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
  });

  it('exports the latest complete snapshot by default', async () => {
    const out = path.join(tmp.dir, 'latest.db');
    await store.exportTo(out);
    readCopy(out, (db) => {
      expect(db.prepare('SELECT name FROM records ORDER BY id').pluck().all()).toEqual(['alpha two', 'delta']);
      expect(db.prepare('SELECT count(*) FROM record_versions').pluck().get()).toBe(4); // history kept
    });
  });

  it('should error and not write if the target exists, unless told to overwrite', async () => {
    const out = path.join(tmp.dir, 'exists.db');
    fs.writeFileSync(out, 'precious');
    await expect(store.exportTo(out)).rejects.toMatchObject({ code: 'usage', message: expect.stringMatching(/already exists/) });
    expect(fs.readFileSync(out, 'utf8')).toBe('precious');
    await store.exportTo(out, s1, { overwrite: true });
    expect(fs.statSync(out).mode & 0o777).toBe(0o600);
    readCopy(out, (db) => expect(db.prepare('SELECT count(*) FROM records').pluck().get()).toBe(2));
  });

  it('refuses to export a snapshot that is not complete', async () => {
    const s3 = store.beginSnapshot('full');
    await expect(store.exportTo(path.join(tmp.dir, 'x.db'), s3)).rejects.toMatchObject({ code: 'usage' });
    await expect(store.exportTo(path.join(tmp.dir, 'y.db'), 42)).rejects.toThrow(/does not exist/);
  });

  it('passes verify on good data', () => {
    const report = store.verify();
    expect(report).toMatchObject({ ok: true, problems: [] });
    expect(report.checks).toEqual(['integrity', 'foreign-keys', 'history', 'orphans', 'snapshots', 'erasures']);
  });

  it('catches overlapping versions', () => {
    const row = store.db.prepare(`SELECT * FROM record_versions WHERE id = 'r3'`).get() as Record<string, unknown>;
    store.db
      .prepare(`INSERT INTO record_versions (id, workspace_id, module_id, name, is_completed, is_archived, sub_record_count,
        amendment_count, raw, hash, valid_from, valid_to) VALUES ('r3', 'w1', 'm1', 'ghost', 0, 0, 0, 0, '{}', 'h', ?, ?)`)
      .run(s1, s2); // [s1, s2) — fine alone
    expect(store.verify().ok).toBe(true);
    store.db.prepare(`UPDATE record_versions SET valid_from = ? WHERE vid = ?`).run(s1, row.vid); // now [s1, ∞) overlaps
    const report = store.verify();
    expect(report.ok).toBe(false);
    expect(report.problems).toContainEqual({ check: 'history', message: expect.stringMatching(/record r3: versions \d+ and \d+ overlap/) });
  });

  it('catches orphans, tolerating a parent gone in the newest snapshot only', async () => {
    const s3 = store.beginSnapshot('incremental');
    await store.apply(s3, { gone: [{ kind: 'module', id: 'm1' }] }); // no cascade: records left behind
    store.finishSnapshot(s3, 'complete', {});
    expect(store.verify().ok).toBe(true);
    store.finishSnapshot(store.beginSnapshot('incremental'), 'complete', {});
    const report = store.verify();
    expect(report.ok).toBe(false);
    expect(report.problems).toContainEqual({ check: 'orphans', message: 'current record r1 belongs to module m1, which is not current' });
    expect(report.problems).toContainEqual({ check: 'orphans', message: 'current record r3 belongs to module m1, which is not current' });
    store.db.prepare(`DELETE FROM record_versions WHERE id = 'r1'`).run();
    expect(store.verify().problems).toContainEqual({ check: 'orphans', message: 'current cell x1 belongs to record r1, which is not current' });
  });

  it('reports an interrupted snapshot and one in progress as warnings, not problems', () => {
    const mine = store.beginSnapshot('incremental');
    expect(store.verify()).toMatchObject({ ok: true, warnings: [{ check: 'snapshots', message: expect.stringContaining(`${mine} is running`) }] });
    const deadPid = spawnSync(process.execPath, ['-e', '0']).pid;
    store.db.prepare('UPDATE snapshot_runs SET owner_pid = ? WHERE id = ?').run(deadPid, mine);
    const report = store.verify();
    expect(report.ok).toBe(true);
    expect(report.problems).toEqual([]);
    expect(report.warnings).toEqual([{ check: 'snapshots', message: expect.stringContaining(`snapshot ${mine} was interrupted`) }]);
  });

  it('reports dangling snapshot references', () => {
    store.db.pragma('foreign_keys = OFF');
    store.db.prepare(`UPDATE record_versions SET valid_to = 77 WHERE id = 'r3'`).run();
    const checks = store.verify().problems.map((p) => p.check);
    expect(checks).toContain('foreign-keys');
    expect(checks).toContain('history');
  });
});

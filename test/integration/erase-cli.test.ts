// `wbsync erase` as a user types it (runCli in-process, emulator in-process): refusals exit 2 and
// change no byte; a dry run changes no byte; a module erased is kept out of the next sync (warned)
// until --lift; beside the daemon's pass holding the write lock it waits its turn, then finishes.

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireLock } from '../../src/store/lock.js';
import type { RunningEmulator } from '../../src/emulator/types.js';
import { syncedEmulator, type SyncedEmulator } from '../helpers/synced-emulator.js';

const bytes = (f: string): Buffer => (fs.existsSync(f) ? fs.readFileSync(f) : Buffer.alloc(0));

describe.each(['spec', 'observed'] as const)('wbsync erase (%s dialect)', (dialect) => {
  let emu: RunningEmulator;
  let db: string;
  let s: SyncedEmulator;
  const filesHash = (): string => createHash('sha256').update(bytes(db)).update(bytes(`${db}-wal`)).digest('hex');
  const cli = (...argv: string[]): ReturnType<SyncedEmulator['cli']> => s.cli(...argv);
  const q = async (sql: string, ...params: unknown[]): Promise<unknown[]> => {
    const Database = (await import('better-sqlite3')).default;
    const d = new Database(db, { readonly: true });
    try {
      return d.prepare(sql).all(...params);
    } finally {
      d.close();
    }
  };
  beforeAll(async () => {
    s = await syncedEmulator({ dialect, syncs: 2 });
    ({ emu, db } = s);
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('refuses without a target, with a bad id or mixed flags: exit 2, not a byte changed', async () => {
    const h0 = filesHash();
    for (const argv of [['erase'], ['erase', '--dry-run'], ['erase', '--user', 'no such id!'], ['erase', '--lift', 'x1234567', '--module', 'abcd1234'], ['erase', '--module', 'abcd1234', '--offsite'], ['erase', '--user', 'ffffffffffffffffffffffff'], ['erase', 'abcd1234']]) {
      const r = await cli(...argv);
      expect(r.code, `${argv.join(' ')}: ${r.err}`).toBe(2);
      expect(r.err.trim().split('\n')[0]).toMatch(/^wbsync: /);
    }
    expect((await cli('erase', '--json')).out).toContain('"error"');
    expect(filesHash()).toBe(h0);
  });

  it('a dry run shows counts per table and per snapshot (one JSON document) and changes nothing', async () => {
    const mod = ((await q(`SELECT id FROM modules ORDER BY name LIMIT 1`)) as Array<{ id: string }>)[0]!.id;
    const h0 = filesHash();
    const r = await cli('erase', '--module', mod, '--dry-run', '--json');
    expect(r.code, r.err).toBe(0);
    const doc = JSON.parse(r.out);
    expect(doc).toMatchObject({ dryRun: true, targets: [{ kind: 'module', id: mod }], tables: { module_versions: { deleted: 1, rewritten: 0 } }, snapshots: { 1: expect.any(Number), 2: expect.any(Number) } });
    expect(doc.tables.record_versions.deleted).toBeGreaterThan(0);
    expect(filesHash()).toBe(h0);
    const text = await cli('erase', '--module', mod, '--dry-run');
    expect(text.out).toContain('would erase module');
    expect(filesHash()).toBe(h0);
  });

  it('erases a module; the next sync warns and does not store it; --lift lets it back', async () => {
    const mod = ((await q(`SELECT id, name FROM modules ORDER BY name LIMIT 1`)) as Array<{ id: string; name: string }>)[0]!;
    const names = ((await q(`SELECT DISTINCT name FROM record_versions WHERE module_id = '${mod.id}' AND length(name) >= 6`)) as Array<{ name: string }>).map((x) => x.name);
    const r = await cli('erase', '--module', mod.id, '--reason', 'ticket 7', '--json');
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ dryRun: false, complete: true });
    expect(await q(`SELECT count(*) AS n FROM module_versions WHERE id = '${mod.id}'`)).toEqual([{ n: 0 }]);
    expect(await q(`SELECT count(*) AS n FROM record_versions WHERE module_id = '${mod.id}'`)).toEqual([{ n: 0 }]);
    // its records' names are gone from the file, unless a row that stays holds the same text
    const all = `SELECT raw FROM ${['workspace', 'member', 'module', 'collection', 'column', 'record', 'cell', 'amendment', 'automation', 'activity', 'reference', 'module_access'].map((t) => `${t}_versions`).join(' UNION ALL SELECT raw FROM ')}`;
    const unique: string[] = [];
    for (const n of names) if (((await q(`SELECT count(*) AS n FROM (${all}) WHERE instr(raw, ?) > 0`, n)) as Array<{ n: number }>)[0]!.n === 0) unique.push(n);
    expect(unique.length).toBeGreaterThan(2);
    expect(unique.filter((n) => bytes(db).indexOf(Buffer.from(n)) >= 0 || bytes(`${db}-wal`).indexOf(Buffer.from(n)) >= 0)).toEqual([]);
    expect((await cli('verify')).code).toBe(0);

    const ws = ((await q('SELECT id FROM workspaces')) as Array<{ id: string }>)[0]!.id;
    const plan = await cli('restore', 'workspace', ws, '--new-name', 'Copy', '--dry-run', '--json');
    expect(plan.code, plan.err).toBe(0);
    expect(JSON.parse(plan.out).notRestored).toContainEqual(expect.objectContaining({ entity: 'module', id: mod.id, label: '[erased]' }));

    const s = await cli('sync', '--full', '--json');
    expect(s.code, s.err).toBe(0);
    expect(JSON.parse(s.out).erasedLive).toContain(`module ${mod.id}`);
    expect(await q(`SELECT count(*) AS n FROM module_versions WHERE id = '${mod.id}'`)).toEqual([{ n: 0 }]);

    const lifted = await cli('erase', '--lift', mod.id);
    expect(lifted.code, lifted.err).toBe(0);
    expect((await cli('erase', '--lift', mod.id)).code).toBe(2); // nothing left to lift
    expect((await cli('sync', '--full')).code).toBe(0);
    expect(await q(`SELECT count(*) AS n FROM modules WHERE id = '${mod.id}'`)).toEqual([{ n: 1 }]);
  });

  it("beside the daemon's pass holding the write lock: waits its turn, says for what, then finishes (no advice to stop the daemon)", async () => {
    const rec = ((await q(`SELECT id FROM records WHERE parent_record_id IS NULL ORDER BY id LIMIT 1`)) as Array<{ id: string }>)[0]!.id;
    const pass = acquireLock(db, { command: 'daemon pass' });
    let released = 0;
    const timer = setTimeout(() => {
      released = Date.now();
      pass.release();
    }, 800);
    try {
      const r = await cli('erase', '--record', rec, '--json');
      expect(r.code, r.err).toBe(0);
      expect(released).toBeGreaterThan(0); // it ran only after the pass let go
      expect(r.err).toContain(`the database is being changed by the wbsync daemon's pass (pid ${process.pid}`);
      expect(r.err).not.toMatch(/kill|stop the daemon/);
      expect(JSON.parse(r.out)).toMatchObject({ complete: true });
    } finally {
      clearTimeout(timer);
      pass.release();
    }
    expect(await q(`SELECT status FROM erasures WHERE entity_id = '${rec}'`)).toEqual([{ status: 'complete' }]);
    expect(await q(`SELECT count(*) AS n FROM record_versions WHERE id = '${rec}'`)).toEqual([{ n: 0 }]);
  });
});

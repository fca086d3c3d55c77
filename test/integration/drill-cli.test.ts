// `wbsync drill` as a user types it (runCli in-process; the configured service is an in-process
// emulator with a request log): one JSON document, the exit codes (0 / 5 / 6 / 2), the human table,
// and not one request to the configured service.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/types.js';
import { dumpOf } from '../helpers/harness.js';
import { syncedEmulator, type SyncedEmulator } from '../helpers/synced-emulator.js';

describe.each(['spec', 'observed'] as const)('wbsync drill (%s dialect)', (dialect) => {
  let s: SyncedEmulator;
  let emu: RunningEmulator;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const cli = (...argv: string[]): ReturnType<SyncedEmulator['cli']> => s.cli(...argv);
  beforeAll(async () => {
    s = await syncedEmulator({ dialect });
    ({ emu, dir, env } = s);
    emu.requestLog.clear();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('passes on the demo seed: exit 0, exactly one JSON document, nothing sent to the configured service', { timeout: 90_000 }, async () => {
    const ws = dumpOf(emu).workspaces[0]!._id as string;
    const r = await cli('drill', '--dialect', dialect, '--json');
    expect(r.code, r.err).toBe(0);
    const doc = JSON.parse(r.out);
    expect(doc).toMatchObject({ ok: true, snapshot: 1, service: `the bundled emulator (${dialect} dialect)`, notRestorableFields: expect.any(Array) });
    const w = doc.workspaces.find((x: { workspaceId: string }) => x.workspaceId === ws);
    expect(w).toMatchObject({ ok: true, differing: [], restoredId: expect.any(String) });
    expect(w.entities.cell.compared).toBeGreaterThan(100);
    expect(w.entities.cell.equal).toBe(w.entities.cell.compared);

    const human = await cli('drill', '--workspace', ws);
    expect(human.code).toBe(0);
    expect(human.out).toMatch(/drill of snapshot 1 into the bundled emulator \(observed dialect\): everything restorable restored and equal/);
    expect(human.out).toMatch(/\n {2}cell\s+\d+\s+\d+\s+0\s+0\n/);
    // the configured service was not contacted at all — least of all written to
    expect(emu.requestLog.entries()).toEqual([]);
  });

  it('exits 5 and names the cell when a value cannot be restored', { timeout: 90_000 }, async () => {
    const db = new Database(env.WBSYNC_DB!);
    const type = dialect === 'spec' ? 'rating' : 'number';
    const cell = db.prepare(`SELECT c.id, r.name AS record FROM cells c JOIN columns col ON col.id = c.column_id JOIN records r ON r.id = c.record_id WHERE col.type = ? AND r.is_archived = 0 LIMIT 1`).get(type) as { id: string; record: string };
    const before = db.prepare('SELECT value, raw FROM cell_versions WHERE id = ? AND valid_to IS NULL').get(cell.id) as { value: string; raw: string };
    db.prepare(`UPDATE cell_versions SET value = 'abc', raw = json_set(raw, '$.value', 'abc') WHERE id = ? AND valid_to IS NULL`).run(cell.id);
    try {
      const r = await cli('drill', '--dialect', dialect, '--json');
      expect(r.code).toBe(5);
      const doc = JSON.parse(r.out);
      expect(doc.ok).toBe(false);
      expect(doc.workspaces.flatMap((w: { differing: unknown[] }) => w.differing)).toEqual([expect.objectContaining({ entity: 'cell', id: cell.id, label: expect.stringContaining(cell.record) })]);
      const human = await cli('drill', '--dialect', dialect);
      expect(human.code).toBe(5);
      expect(human.out).toContain('FAILED');
      expect(human.out).toContain(`cell ${cell.record}`);
      expect(human.out).toContain('"abc"');
    } finally {
      db.prepare('UPDATE cell_versions SET value = ?, raw = ? WHERE id = ? AND valid_to IS NULL').run(before.value, before.raw, cell.id);
      db.close();
    }
    expect(emu.requestLog.entries()).toEqual([]);
  });

  it('drills into a staging service with --target-url / --target-key-file; the restored workspace stays there', { timeout: 90_000 }, async () => {
    // same random seed, same people: the staging service knows the same user ids
    const staging = await startEmulator({ dialect, seed: 'none' });
    try {
      writeFileSync(join(dir, 'staging.key'), `${staging.apiKey}\n`, { mode: 0o600 });
      const r = await cli('drill', '--target-url', staging.baseUrl, '--target-key-file', join(dir, 'staging.key'), '--json');
      expect(r.code, r.out.slice(0, 2000)).toBe(0);
      const doc = JSON.parse(r.out);
      expect(doc).toMatchObject({ ok: true, service: staging.baseUrl });
      const names = dumpOf(staging).workspaces.map((w) => w.name as string);
      expect(names).toEqual(doc.workspaces.map((w: { name: string }) => expect.stringMatching(new RegExp(`^${w.name} \\(wbsync drill \\d{14}\\)$`))));
      expect(r.out).not.toContain(staging.apiKey);
      expect(emu.requestLog.entries()).toEqual([]);
    } finally {
      await staging.stop();
    }
  });

  it('refuses what it cannot drill (exit 6) and bad flags (exit 2)', async () => {
    const missing = await cli('drill', '--workspace', 'nope', '--json');
    expect(missing.code).toBe(6);
    expect(JSON.parse(missing.out).error.message).toContain('does not hold workspace nope');
    expect((await cli('drill', '--snapshot', '42')).code).toBe(6);
    expect((await cli('drill', '--dialect', 'klingon')).code).toBe(2);
    expect((await cli('drill', '--target-url', 'http://127.0.0.1:9')).err).toContain('--target-url and --target-key-file go together');
    const none = await cli('drill', '--db', join(dir, 'absent.db'));
    expect(none).toMatchObject({ code: 6, err: expect.stringContaining('no database at') });
    expect(emu.requestLog.entries()).toEqual([]);
  });
});

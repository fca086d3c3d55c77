// Restore drills against the in-process emulator, both dialects: the demo seed restores whole; a
// value the service refuses and writes the scratch service fails are named; the drill never writes
// to the configured service and leaves no file behind.

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runDrill, type DrillReport } from '../../src/drill/drill.js';
import { erase } from '../../src/store/erasure/index.js';
import type { Dialect } from '../../src/emulator/types.js';
import { makeHarness, silentLogger, tempDir, type Harness } from '../helpers/harness.js';

const HTTP = { concurrency: 8, timeoutMs: 10_000, retries: 1 };
const ATTRIBUTION = 'Restored by wbsync — originally by {author} at {createdAt}.';

/** The database's bytes (file and WAL): a drill holds it read-only, so they must not change. */
const fingerprint = (db: string): string => createHash('sha256').update(readFileSync(db)).update(existsSync(`${db}-wal`) ? readFileSync(`${db}-wal`) : '').digest('hex');

function summary(r: DrillReport): string[] {
  return r.workspaces.flatMap((w) => [...(w.error ? [`${w.name}: ${w.error}`] : []), ...w.differing.map((d) => `${w.name}: ${d.entity} ${d.label}: ${d.reason}${d.fields ? ` ${JSON.stringify(d.fields).slice(0, 300)}` : ''}`)]);
}

describe.each(['spec', 'observed'] as Dialect[])('wbsync drill (%s dialect)', (dialect) => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('restores the demo seed whole: every entity compared and equal, nothing sent to the configured service', { timeout: 90_000 }, async () => {
    h = await makeHarness(dialect);
    await h.sync();
    h.emu.requestLog.clear();
    const tmp = tempDir('wbsync-drill-root-');
    const before = fingerprint(h.dbPath);
    try {
      const r = await runDrill({ db: h.dbPath, dialect, attribution: ATTRIBUTION, http: HTTP, logger: silentLogger, tmpRoot: tmp.dir });
      expect(summary(r)).toEqual([]);
      expect(r.ok).toBe(true);
      const w = r.workspaces[0]!;
      for (const e of ['module', 'collection', 'column', 'record', 'subrecord', 'cell', 'amendment', 'automation', 'member'] as const) {
        expect(w.entities[e].compared, e).toBeGreaterThan(0);
        expect(w.entities[e].differing, e).toBe(0);
      }
      // what the restore cannot bring back is said, with why (records archived before any backup)
      for (const n of w.notRestorable) expect(n.reason).not.toBe('');
      expect(readdirSync(tmp.dir)).toEqual([]);
      expect(h.emu.requestLog.entries()).toEqual([]);
      expect(fingerprint(h.dbPath)).toBe(before); // nothing written to the snapshot database, not even a journal
    } finally {
      tmp.cleanup();
    }
  });

  it('fails and names the cell when the snapshot holds a value the service refuses ("abc" in a rating / number)', { timeout: 90_000 }, async () => {
    h = await makeHarness(dialect);
    await h.sync();
    // the deployed service stores ratings as sent and checks numbers only: the spec refuses both
    const type = dialect === 'spec' ? 'rating' : 'number';
    const cell = h.store.db
      .prepare(`SELECT c.id, r.name AS record, col.name AS col FROM cells c JOIN columns col ON col.id = c.column_id JOIN records r ON r.id = c.record_id WHERE col.type = ? AND r.is_archived = 0 LIMIT 1`)
      .get(type) as { id: string; record: string; col: string };
    expect(cell).toBeDefined();
    h.store.db.prepare(`UPDATE cell_versions SET value = 'abc', raw = json_set(raw, '$.value', 'abc') WHERE id = ? AND valid_to IS NULL`).run(cell.id);
    const r = await runDrill({ db: h.dbPath, dialect, attribution: ATTRIBUTION, http: HTTP, logger: silentLogger });
    expect(r.ok).toBe(false);
    const w = r.workspaces[0]!;
    expect(w.differing).toEqual([expect.objectContaining({ entity: 'cell', id: cell.id, label: `${cell.record} · ${cell.col}`, reason: expect.stringMatching(/refused.*HTTP 4\d\d.*"abc"/s) })]);
    expect(w.entities.cell.differing).toBe(1);
    expect(w.entities.cell.equal).toBe(w.entities.cell.compared - 1);
  });

  it('passes after an erasure: the erased record and the erased person\'s notes are listed as not restorable, not as differences', { timeout: 90_000 }, async () => {
    h = await makeHarness(dialect);
    await h.sync();
    const db = h.store.db;
    // a person who wrote notes (not the key's owner, who restores), and a record with cells
    const author = db.prepare(`SELECT a.user_id FROM amendments a JOIN members m ON m.user_id = a.user_id AND m.role <> 'owner' GROUP BY a.user_id ORDER BY count(*) DESC LIMIT 1`).pluck().get() as string;
    const notes = db.prepare('SELECT count(*) FROM amendments WHERE user_id = ?').pluck().get(author) as number;
    const record = db.prepare(`SELECT r.id FROM records r WHERE r.parent_record_id IS NULL AND r.is_archived = 0 AND r.amendment_count = 0 AND EXISTS (SELECT 1 FROM cells c WHERE c.record_id = r.id) LIMIT 1`).pluck().get() as string;
    expect(author && record && notes).toBeTruthy();
    const res = erase(db, { targets: [{ kind: 'user', id: author }, { kind: 'record', id: record }], dryRun: false, reason: null, now: () => new Date() });
    expect(res.complete).toBe(true);
    const r = await runDrill({ db: h.dbPath, dialect, attribution: ATTRIBUTION, http: HTTP, logger: silentLogger });
    expect(summary(r)).toEqual([]);
    expect(r.ok).toBe(true);
    const w = r.workspaces[0]!;
    const erased = w.notRestorable.filter((n) => /erased/.test(n.reason));
    expect(erased.filter((n) => n.entity === 'amendment').length).toBeGreaterThanOrEqual(notes);
    expect(erased.map((n) => n.id)).toContain(record);
    expect(w.entities.amendment.differing).toBe(0);
  });

  it('should refuse and leave nothing behind if the snapshot lacks the workspace or the database is missing', { timeout: 30_000 }, async () => {
    h = await makeHarness(dialect);
    await h.sync();
    const tmp = tempDir('wbsync-drill-root-');
    try {
      await expect(runDrill({ db: h.dbPath, workspaceIds: ['65f0c0ffee0000000000dead'], dialect, attribution: ATTRIBUTION, http: HTTP, logger: silentLogger, tmpRoot: tmp.dir })).rejects.toMatchObject({ code: 'restore_refused', message: expect.stringContaining('does not hold workspace 65f0c0ffee0000000000dead') });
      await expect(runDrill({ db: h.dbPath, snapshotId: 99, dialect, attribution: ATTRIBUTION, http: HTTP, logger: silentLogger, tmpRoot: tmp.dir })).rejects.toMatchObject({ code: 'restore_refused', message: expect.stringContaining('snapshot 99 does not exist') });
      await expect(runDrill({ db: `${tmp.dir}/none.db`, dialect, attribution: ATTRIBUTION, http: HTTP, logger: silentLogger, tmpRoot: tmp.dir })).rejects.toMatchObject({ code: 'restore_refused' });
      expect(readdirSync(tmp.dir)).toEqual([]);
    } finally {
      tmp.cleanup();
    }
  });

  it('fails and names what the scratch service would not write (fault injection)', { timeout: 90_000 }, async () => {
    h = await makeHarness(dialect);
    await h.sync();
    const tmp = tempDir('wbsync-drill-root-');
    // a pass runs meanwhile: the drill's read of the database does not stand in its way
    const [r, pass] = await Promise.all([
      runDrill({
        db: h.dbPath,
        dialect,
        attribution: ATTRIBUTION,
        http: HTTP,
        logger: silentLogger,
        tmpRoot: tmp.dir,
        // the third note posted is refused, as a service with a bad day would
        onScratch: (s) => s.emulator!.faults.add({ method: 'POST', route: /\/amendments/, nth: 3, status: 422 }),
      }),
      h.sync(),
    ]);
    try {
      expect(pass.status).toBe('complete');
      expect(readdirSync(tmp.dir)).toEqual([]); // removed on failure too
    } finally {
      tmp.cleanup();
    }
    expect(r.ok).toBe(false);
    const failed = r.workspaces.flatMap((w) => w.differing);
    expect(failed).toContainEqual(expect.objectContaining({ entity: 'amendment', label: expect.any(String), reason: expect.stringContaining('HTTP 422') }));
    // replies to it could not be sent either, and say so
    for (const f of failed) expect(f.reason).toMatch(/HTTP 422|needs .* which the service refused/);
    expect(r.workspaces[0]!.entities.amendment.differing).toBeGreaterThanOrEqual(1);
  });
});

// Erasure on the demo seed with 20 passes of history: a person and a record are erased; then the
// file and its WAL, read as raw bytes, hold none of their strings; every snapshot's export shows no
// trace and every other row of every snapshot is unchanged; verify passes; a module restore skips
// the record and says so; the next sync does not bring either back while they are live (a warning
// per pass), and --lift lets it store the record again.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { erase } from '../../src/store/erasure/index.js';
import { restoreModule, restoreRecords } from '../../src/restore/index.js';
import { liftErasure } from '../../src/store/erasure/index.js';
import { api, makeHarness, silentLogger, type Harness } from '../helpers/harness.js';
import { runPass } from '../../src/sync/pass.js';
import { VIEWS } from '../helpers/random-writes.js';
import { buildHistory, filesHash, foundIn } from '../helpers/erase-kit.js';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/port.js';

async function exportRows(store: Store, dir: string, id: number): Promise<{ rows: Record<string, string[]>; file: string }> {
  const file = path.join(dir, `export-${id}-${Math.random().toString(36).slice(2)}.db`);
  await store.exportTo(file, id);
  const copy = openStore(file, { readonly: true });
  try {
    return { rows: Object.fromEntries(VIEWS.map((v) => [v, (copy.db.prepare(`SELECT * FROM ${v}`).all() as unknown[]).map((r) => JSON.stringify(r)).sort()])), file };
  } finally {
    copy.close();
  }
}

const col = (store: Store, sql: string, ...p: unknown[]): string[] => store.db.prepare(sql).pluck().all(...p) as string[];

describe.each(['spec', 'observed'] as Dialect[])('erase (%s dialect)', (dialect) => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('erases a person and a record from every version, bytes included, and keeps them out', { timeout: 180_000 }, async () => {
    h = await makeHarness(dialect, { randomSeed: 23 });
    await buildHistory(h, dialect, 23, 20);
    const store = h.store;
    const db = store.db;
    const grace = db.prepare(`SELECT user_id, first_name, last_name, email FROM member_versions WHERE first_name = 'Grace' LIMIT 1`).get() as { user_id: string; first_name: string; last_name: string; email: string };
    const user = grace.user_id;
    // the record: a top-level one with the most amendments (its thread, its cells)
    const record = db.prepare(`SELECT r.id FROM records r WHERE r.parent_record_id IS NULL ORDER BY (SELECT count(*) FROM amendment_versions a WHERE a.record_id = r.id) DESC, (SELECT count(*) FROM records s WHERE s.parent_record_id = r.id) DESC, r.id LIMIT 1`).pluck().get() as string;
    const closure = [record, ...col(store, 'SELECT DISTINCT id FROM record_versions WHERE parent_record_id = ?', record)];
    const inClosure = `(${closure.map((c) => `'${c}'`).join(',')})`;
    const moduleId = db.prepare('SELECT module_id FROM record_versions WHERE id = ?').pluck().get(record) as string;

    // the erased strings: the person's; the record's name, thread and text cells where nothing else holds them
    const personStrings = [grace.email, `${grace.first_name} ${grace.last_name}`, grace.last_name, `@${grace.first_name}`, ...col(store, `SELECT DISTINCT message FROM amendment_versions WHERE user_id = ? AND length(message) >= 12`, user)];
    const recordCandidates = [
      ...col(store, `SELECT DISTINCT name FROM record_versions WHERE id IN ${inClosure} AND length(name) >= 6`),
      ...col(store, `SELECT DISTINCT message FROM amendment_versions WHERE record_id IN ${inClosure} AND length(message) >= 12`),
      ...col(store, `SELECT DISTINCT json_extract(value, '$') FROM cell_versions WHERE record_id IN ${inClosure} AND json_valid(value) AND json_type(value) = 'text' AND length(value) >= 10`),
    ];
    const elsewhere = (s: string): boolean =>
      (db.prepare(`SELECT count(*) FROM (
        SELECT raw FROM record_versions WHERE id NOT IN ${inClosure} UNION ALL SELECT raw FROM cell_versions WHERE record_id NOT IN ${inClosure}
        UNION ALL SELECT raw FROM amendment_versions WHERE record_id NOT IN ${inClosure} UNION ALL SELECT raw FROM activity_versions WHERE coalesce(record_id, '') NOT IN ${inClosure}
        UNION ALL SELECT raw FROM module_versions UNION ALL SELECT raw FROM column_versions UNION ALL SELECT raw FROM collection_versions UNION ALL SELECT raw FROM automation_versions) WHERE instr(raw, ?) > 0`).pluck().get(s) as number) > 0;
    const recordStrings = [...new Set(recordCandidates)].filter((s) => !elsewhere(s) && !s.includes(grace.first_name));
    expect(recordStrings.length).toBeGreaterThan(2);
    const gone = [...new Set([...personStrings, ...recordStrings])];
    // a restore journal that quoted them (a refusal's label and value, a run's summary)
    db.prepare(`INSERT INTO restore_runs (id, kind, run_key, snapshot_id, source_ids, status, started_at, summary) VALUES (900, 'records', 'k', 1, '[]', 'complete', '2026-01-01', ?)`).run(JSON.stringify({ notRestored: [{ entity: 'record', id: record, label: recordStrings[0] }, { entity: 'grant', id: user, label: `${grace.first_name} ${grace.last_name}` }] }));
    db.prepare(`INSERT INTO restore_refusals (run_id, step_key, old_id, entity, entity_id, label, reason, value, refused_at) VALUES (900, 's1', ?, 'cell', 'c1', ?, 'refused', ?, '2026-01-01')`).run(record, recordStrings[0], grace.email);
    expect(foundIn(h.dbPath, gone).length).toBeGreaterThan(0);

    const snapshots = store.listSnapshots().map((s) => s.id);
    expect(snapshots.length).toBe(21);
    const before = new Map<number, Record<string, string[]>>();
    for (const k of snapshots) {
      const e = await exportRows(store, h.dir, k);
      before.set(k, e.rows);
      fs.rmSync(e.file);
    }

    // a dry run counts per table and per snapshot and changes nothing
    const targets = [{ kind: 'user' as const, id: user }, { kind: 'record' as const, id: record }];
    const hash0 = filesHash(h.dbPath);
    const dry = erase(db, { targets, dryRun: true, reason: null, now: () => new Date() });
    expect(filesHash(h.dbPath)).toBe(hash0);
    expect(dry.tables['member_versions']?.deleted).toBeGreaterThan(0);
    expect(dry.tables['record_versions']?.deleted).toBeGreaterThan(0);
    expect(dry.tables['amendment_versions']?.rewritten).toBeGreaterThan(0);
    expect(Object.keys(dry.snapshots).map(Number)).toEqual(snapshots);

    const res = erase(db, { targets, dryRun: false, reason: 'test request 1', now: () => new Date() });
    expect(res.complete).toBe(true);
    expect(res.tables).toEqual(dry.tables); // the dry run said exactly which rows
    expect(foundIn(h.dbPath, gone)).toEqual([]);
    expect(store.verify()).toMatchObject({ ok: true, problems: [] });
    expect(db.prepare(`SELECT count(*) FROM search WHERE entity_id IN ${inClosure}`).pluck().get()).toBe(0);
    expect(db.prepare('SELECT kind, entity_id, reason, status FROM erasures ORDER BY id').all()).toEqual([
      { kind: 'user', entity_id: user, reason: 'test request 1', status: 'complete' },
      { kind: 'record', entity_id: record, reason: 'test request 1', status: 'complete' },
    ]);

    // every snapshot: no trace in the export's bytes; every row that held nothing erased is unchanged
    const ids = [user, ...closure];
    const touched = (row: string): boolean => ids.some((i) => row.includes(i)) || gone.some((s) => row.includes(JSON.stringify(s).slice(1, -1))) || row.includes('[erased]');
    // an entity is compared unless some version of it held something erased (then it was rewritten)
    const keyOf = (v: string, row: string): string => {
      const r = JSON.parse(row) as Record<string, unknown>;
      return `${v}:${String(r.id ?? [r.workspace_id, r.user_id, r.module_id, r.record_id, r.column_id].join('/'))}`;
    };
    const rewritten = new Set<string>();
    for (const k of snapshots) for (const v of VIEWS) for (const r of before.get(k)![v]!) if (touched(r)) rewritten.add(keyOf(v, r));
    const kept = (v: string) => (r: string): boolean => !rewritten.has(keyOf(v, r));
    for (const k of snapshots) {
      const e = await exportRows(store, h.dir, k);
      expect(foundIn(e.file, gone), `export of snapshot ${k}`).toEqual([]);
      fs.rmSync(e.file);
      for (const v of VIEWS) {
        expect(e.rows[v]!.filter(kept(v)), `snapshot ${k} ${v}`).toEqual(before.get(k)![v]!.filter(kept(v)));
        expect(e.rows[v]!.filter((r) => gone.some((s) => r.includes(JSON.stringify(s).slice(1, -1)))), `snapshot ${k} ${v}`).toEqual([]);
        expect(e.rows[v]!.filter((r) => closure.some((c) => r.includes(`"id":"${c}"`) || r.includes(`"record_id":"${c}"`))), `snapshot ${k} ${v}`).toEqual([]);
      }
      expect(e.rows['members']!.filter((r) => r.includes(user))).toEqual([]);
    }

    // a restore of the module skips the erased record and says so; the person's notes are not re-posted
    const plan = await restoreModule({ client: h.client, store }, { moduleId, asCopy: true, dryRun: true, attribution: '' });
    expect(plan.notRestored).toContainEqual(expect.objectContaining({ entity: 'record', id: record, label: '[erased]' }));
    for (const sub of closure.slice(1)) expect(plan.notRestored).toContainEqual(expect.objectContaining({ entity: 'record', id: sub }));
    await expect(restoreRecords({ client: h.client, store }, { recordIds: [record], attribution: '', dryRun: true })).rejects.toThrow(/erased/);

    // the next sync meets both still live: warns, stores neither, and brings no erased byte back
    const versions = db.prepare('SELECT count(*) FROM amendment_versions WHERE user_id = ?').pluck().get(user);
    const next = await h.sync({ full: true });
    expect(next.failures).toEqual([]);
    expect(next.erasedLive).toEqual(expect.arrayContaining([`record ${record}`, `user ${user}`]));
    expect(db.prepare(`SELECT count(*) FROM record_versions WHERE id IN ${inClosure}`).pluck().get()).toBe(0);
    expect(db.prepare('SELECT count(*) FROM member_versions WHERE user_id = ?').pluck().get(user)).toBe(0);
    // a rewritten version hashes like the same entity met live: no new version of the person's notes
    expect(db.prepare('SELECT count(*) FROM amendment_versions WHERE user_id = ?').pluck().get(user)).toBe(versions);
    expect(foundIn(h.dbPath, gone)).toEqual([]);
    expect(store.verify()).toMatchObject({ ok: true, problems: [] });

    // a fresh process (the gate has learnt nothing yet), an incremental pass whose only news is
    // someone else typing the person's email into a record's name: no batch of that pass holds the
    // person's own rows, and still the email is scrubbed — the ledger's person is learnt from the
    // live member lists before any batch
    const other = db.prepare(`SELECT id FROM records WHERE parent_record_id IS NULL AND id NOT IN ${inClosure} ORDER BY id LIMIT 1`).pluck().get() as string;
    expect((await api(h.emu, 'PUT', `/records/${other}`, { name: `Call ${grace.email} back` })).status).toBe(200);
    h.emu.clock.advance(1000);
    await h.emu.idle();
    const fresh = openStore(h.dbPath);
    try {
      const pass = await runPass({ client: h.client, store: fresh, logger: silentLogger }, {});
      expect(pass).toMatchObject({ kind: 'incremental', failures: [] });
      expect(fresh.db.prepare('SELECT name FROM records WHERE id = ?').pluck().get(other)).toBe('Call [erased] back');
    } finally {
      fresh.close();
    }
    expect(foundIn(h.dbPath, gone)).toEqual([]);

    // lifted: the next sync stores the record again
    expect(liftErasure(db, record, new Date().toISOString()).map((e) => e.kind)).toEqual(['record']);
    const after = await h.sync({ full: true });
    expect(after.erasedLive ?? []).not.toContain(`record ${record}`);
    expect(db.prepare('SELECT count(*) FROM records WHERE id = ?').pluck().get(record)).toBe(1);
  });
});

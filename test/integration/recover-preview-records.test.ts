// The rollback preview counts the plain records' fields put back in SQL (store/read/record-census.ts)
// and plans the rest, with the first page of the plain ones, by the planner; this holds it equal to
// the planner fed both modules whole, over random histories of what that count has to get right:
// every field a record step writes (name — in non-ASCII too —, position to a tie, to null and to a
// fraction, completion, archiving either way, collection: to a live one, to none, to one deleted
// later, from none), edits made and undone (a new version, the same fields), a version that changes
// only what no planner reads, records under a parent and out from under one, deleted, added, and
// plain records read beyond the first page for their relation cells or their notes (a write to one
// is counted once). Every earlier snapshot, the whole module's rollback and one column's, first
// pages of several sizes (0: every plain record counted in SQL).
// The restore preview ("whole module") counts the plain records in SQL too (store/read/restore-content.ts):
// over the same histories, from every snapshot, it is held equal to the planner fed the whole
// module — records tied in position, without one, archived, completed, without a collection, under
// a parent, with notes and relation cells, all seen.

import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Amendment, BoardRecord, Cell, Collection, Column, Module, Workspace } from '../../src/domain/entities.js';
import { openStore } from '../../src/store/index.js';
import type { GoneMark, Store, Upserts } from '../../src/store/port.js';
import { previewRecover } from '../../src/ui/recover-plan.js';
import { tempDir } from '../helpers/harness.js';
import { prng } from '../helpers/random-writes.js';
import { ATTRIBUTION, shownPreview, slowPreview } from '../helpers/slow-preview.js';

const AT = '2026-01-01T00:00:00.000Z';
const hex = (prefix: string, n: number): string => `${prefix}${n.toString(16).padStart(24 - prefix.length, '0')}`;

async function buildHistory(store: Store, seed: number, passes: number): Promise<string> {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const ws: Workspace = { id: hex('a', 1), name: 'Records', slug: null, description: null, icon: null, banner: null, createdAt: AT, updatedAt: AT, raw: {} };
  const mod: Module = { id: hex('b', 1), workspaceId: ws.id, name: 'Fields', description: null, icon: null, color: null, visibility: null, tags: [], createdAt: AT, updatedAt: AT, raw: {} };
  let collections: Collection[] = [1, 2, 3, 4].map((i) => ({ id: hex('c', i), moduleId: mod.id, name: `Stage ${i}`, color: null, position: i, isCollapsed: false, tieRank: 0, raw: {} }));
  const column = (i: number, type: string, settings: Column['settings']): Column => ({
    id: hex('d', i), moduleId: mod.id, scope: 'record', name: `Column ${i}`, type, position: i, width: null, isRequired: false, isHidden: false, statusOptions: null, settings, tieRank: 0, raw: {},
  });
  // a text column (counted in SQL) and a relation column (its cells planned: their records read)
  const columns = [column(1, 'text', null), column(2, 'relation', { targetModule: mod.id })];
  const records = new Map<string, BoardRecord>();
  const cells = new Map<string, Cell>();
  const notes = new Map<string, Amendment>();
  let n = 0;
  const names = ['Ärger', 'zebra', 'Zebra', 'émigré', '😀 launch', 'ｆｕｌｌ', 'a'];
  const record = (collectionId: string | null, parent: BoardRecord | null): BoardRecord => {
    n++;
    return {
      id: hex('e', n), workspaceId: ws.id, moduleId: mod.id, collectionId, parentRecordId: parent?.id ?? null, name: `${pick(names)} ${n}`,
      position: n % 6 === 0 ? null : n % 5 === 0 ? 3 : n, isCompleted: n % 4 === 0, isArchived: false, subRecordCount: 0, amendmentCount: 0, createdAt: AT, updatedAt: AT, raw: {},
    };
  };
  const setCell = (r: BoardRecord, col: Column): Cell => {
    const key = `${r.id}|${col.id}`;
    const value = col.type === 'relation' ? JSON.stringify([pick([...records.keys()])]) : `v${Math.floor(rnd() * 4)}`;
    const c: Cell = { id: cells.get(key)?.id ?? hex('f', (cells.size * 7919 + 13) % 100_003), recordId: r.id, columnId: col.id, value, createdAt: null, updatedAt: null, raw: {} };
    cells.set(key, c);
    return c;
  };
  const note = (r: BoardRecord): Amendment => ({ id: hex('9', notes.size + 1), workspaceId: ws.id, moduleId: mod.id, recordId: r.id, parentId: null, userId: null, message: `note ${notes.size + 1}`, edited: false, isDeleted: false, createdAt: AT, raw: {} });

  for (let i = 0; i < 40; i++) {
    const r = record(i % 9 === 0 ? null : collections[i % 4]!.id, null);
    records.set(r.id, r);
    if (i % 7 === 0) {
      const sub = record(r.collectionId, r);
      records.set(sub.id, sub);
    }
  }
  for (const r of records.values()) if (r.parentRecordId === null) for (const c of columns) if (rnd() < 0.7) setCell(r, c);
  for (const r of [...records.values()].slice(0, 10)) notes.set(note(r).id, note(r));
  const first = store.beginSnapshot('full');
  await store.apply(first, { upserts: { workspaces: [ws], modules: [mod], collections, columns, records: [...records.values()], cells: [...cells.values()], amendments: [...notes.values()] } });
  store.finishSnapshot(first, 'complete', { requests: 0, durationMs: 0 });

  for (let p = 1; p <= passes; p++) {
    const up: Required<Pick<Upserts, 'records' | 'cells' | 'amendments'>> = { records: [], cells: [], amendments: [] };
    const gone: GoneMark[] = [];
    const tops = (): BoardRecord[] => [...records.values()].filter((r) => r.parentRecordId === null);
    if (p === 3) {
      // a collection deleted while its records stay (stranded): those moved into it since come back
      gone.push({ kind: 'collection', id: collections[3]!.id });
      collections = collections.slice(0, 3);
    }
    const edit = (r: BoardRecord, change: Partial<BoardRecord>): void => {
      const next = { ...r, ...change };
      records.set(r.id, next);
      up.records.push(next);
    };
    for (let k = 0; k < 18; k++) {
      const r = pick([...records.values()]);
      const x = rnd();
      if (x < 0.14) edit(r, { name: `${pick(names)} (p${p})` });
      else if (x < 0.26) edit(r, { position: pick([null, 3, r.position === null ? 1 : r.position + 0.5, 0.1 + 0.2, -1]) });
      else if (x < 0.36) edit(r, { isCompleted: !r.isCompleted });
      else if (x < 0.44) edit(r, { isArchived: !r.isArchived });
      else if (x < 0.54) edit(r, { collectionId: rnd() < 0.2 ? null : pick(collections).id });
      else if (x < 0.6) {
        // made and undone in one pass: a new version with the same fields; or only what no planner reads
        const was = r;
        edit(r, { name: `${r.name} (undone)` });
        edit(records.get(r.id)!, rnd() < 0.5 ? { name: was.name } : { name: was.name, subRecordCount: was.subRecordCount + 1, updatedAt: `2026-02-0${(p % 9) + 1}T00:00:00.000Z` });
      } else if (x < 0.66) {
        // under another parent, or out from under one
        const t = pick(tops().filter((o) => o.id !== r.id));
        if (r.parentRecordId) edit(r, { parentRecordId: null });
        else if (![...records.values()].some((s) => s.parentRecordId === r.id)) edit(r, { parentRecordId: t.id });
        // its cell written too (a cell of a record moved under a parent is not counted as plain)
        if (rnd() < 0.6) up.cells.push(setCell(records.get(r.id)!, columns[0]!));
      } else if (x < 0.76 && r.parentRecordId === null) {
        // a relation cell written (its record read whole), or a note edited or posted (likewise)
        if (rnd() < 0.5) up.cells.push(setCell(r, columns[1]!));
        else {
          const a = [...notes.values()].find((o) => o.recordId === r.id);
          const edited = a ? { ...a, message: `${a.message} (p${p})`, edited: true } : note(r);
          notes.set(edited.id, edited);
          up.amendments.push(edited);
        }
        // and often a field of the same record, so it is both counted and read
        if (rnd() < 0.7) edit(records.get(r.id)!, { name: `${records.get(r.id)!.name} +` });
      } else if (x < 0.82) up.cells.push(setCell(r, columns[0]!));
      else if (x < 0.9) {
        records.delete(r.id);
        for (const s of [...records.values()]) if (s.parentRecordId === r.id) records.delete(s.id);
        gone.push({ kind: 'record', id: r.id, cascade: true });
      } else {
        const made = record(pick(collections).id, rnd() < 0.3 ? pick(tops()) : null);
        records.set(made.id, made);
        up.records.push(made);
      }
    }
    // one version per record per pass: the last edit
    const last = new Map(up.records.map((r) => [r.id, r]));
    up.records = [...last.values()].filter((r) => records.has(r.id));
    const snap = store.beginSnapshot('incremental');
    await store.apply(snap, { upserts: up, gone });
    store.finishSnapshot(snap, 'complete', { requests: 0, durationMs: 0 });
  }
  return mod.id;
}

describe("the rollback preview, counting plain records' fields in SQL, plans what the whole modules plan", () => {
  let tmp: { dir: string; cleanup: () => void } | undefined;
  afterEach(() => tmp?.cleanup());

  it.each([7, 19, 53])('seed %i', async (seed) => {
    tmp = tempDir();
    const store = openStore(join(tmp.dir, 'records.db'));
    try {
      const moduleId = await buildHistory(store, seed, 6);
      const latest = store.latestCompleteSnapshot()!;
      const seen = new Map<string, number>();
      for (const s of store.snapshotsHolding('module', moduleId).filter((x) => x < latest)) {
        for (const columnId of [undefined, hex('d', 1)]) {
          const slow = slowPreview(store, moduleId, s, 'rollback', columnId);
          for (const listed of [0, 1, 4, 200]) {
            const fast = previewRecover(store, { moduleId, snapshot: s, scope: 'rollback', columnId, attribution: ATTRIBUTION, listed });
            expect(shownPreview(fast), `seed ${seed} snapshot ${s} ${columnId ?? ''} listed ${listed}`).toEqual({ ...slow, writes: slow.writes.slice(0, listed) });
          }
          if (!columnId) for (const w of slow.writes as { entity: string; field: string }[]) if (w.entity === 'record') seen.set(w.field, (seen.get(w.field) ?? 0) + 1);
        }
      }
      // every field a record step writes was put back somewhere, records recreated too
      for (const f of ['name', 'position', 'isCompleted', 'isArchived', 'collectionId', '(deleted)']) expect(seen.get(f) ?? 0, f).toBeGreaterThan(0);

      // the restore preview, from every snapshot (the latest too)
      const shapes = new Set<string>();
      for (const s of store.snapshotsHolding('module', moduleId)) {
        const slow = slowPreview(store, moduleId, s, 'module');
        const fast = previewRecover(store, { moduleId, snapshot: s, scope: 'module', attribution: ATTRIBUTION });
        expect(shownPreview(fast), `seed ${seed} restore from snapshot ${s}`).toEqual(slow);
        const phases = (slow.summary as { phases: { name: string; chained: number }[] }).phases;
        if (phases.find((x) => x.name === 'records')?.chained) shapes.add('tied');
        if (phases.some((x) => x.name === 'archival')) shapes.add('archived');
        if (phases.some((x) => x.name === 'sub-records')) shapes.add('sub-records');
        if (phases.some((x) => x.name === 'amendments')) shapes.add('notes');
        for (const x of slow.notRestored as { entity: string; reason: string }[]) if (x.entity === 'record') shapes.add(x.reason.startsWith('its position') ? 'no position' : 'no collection');
      }
      for (const k of ['tied', 'archived', 'sub-records', 'notes', 'no position', 'no collection']) expect([...shapes], k).toContain(k);
    } finally {
      store.close();
    }
  });
});

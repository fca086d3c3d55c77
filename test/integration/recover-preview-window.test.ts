// The rollback preview reads only what its planner can act on (store/read/module-window.ts): the
// records whose version differs between the snapshot and the latest backup, those under a gone
// record or in a gone collection, the records of the cells and notes that changed, and their
// parents. This holds it equal to the planner fed both modules whole, over random histories with the
// shapes that reduction has to get right: cells edited on records that did not change, a
// parent renamed while only its sub-records' cells change (their labels name it), notes edited and
// deleted, a collection deleted while its records stay (stranded), records moved between
// collections, under another parent, or out from under one. Every earlier snapshot, the whole
// module's rollback and each column's, first pages of several sizes.

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

/** `bare`: the notes name their record only (no module). `crowded`: bare, and another module holds
 * more note versions than this one has records (the preview then seeks each record's notes rather
 * than checking each note's record), and cells of a deleted column (column null) come and go. */
type Shape = 'plain' | 'bare' | 'crowded';

async function buildHistory(store: Store, seed: number, passes: number, shape: Shape = 'plain'): Promise<string> {
  const crowded = shape === 'crowded';
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const ws: Workspace = { id: hex('a', 1), name: 'Window', slug: null, description: null, icon: null, banner: null, createdAt: AT, updatedAt: AT, raw: {} };
  const mod: Module = { id: hex('b', 1), workspaceId: ws.id, name: 'Reduced', description: null, icon: null, color: null, visibility: null, tags: [], createdAt: AT, updatedAt: AT, raw: {} };
  let collections: Collection[] = [1, 2, 3].map((i) => ({ id: hex('c', i), moduleId: mod.id, name: `Stage ${i}`, color: null, position: i, isCollapsed: false, tieRank: 0, raw: {} }));
  const column = (i: number, type: string, settings: Column['settings'], scope: Column['scope'] = 'record'): Column => ({
    id: hex('d', i), moduleId: mod.id, scope, name: `Column ${i}`, type, position: i, width: null, isRequired: false, isHidden: false, statusOptions: null, settings, tieRank: 0, raw: {},
  });
  const columns = [column(1, 'text', null), column(2, 'status', {}), column(3, 'relation', { targetModule: mod.id }), column(4, 'text', null, 'subrecord')];
  const records = new Map<string, BoardRecord>();
  const cells = new Map<string, Cell>();
  const notes = new Map<string, Amendment>();
  let n = 0;
  const record = (collectionId: string, parent: BoardRecord | null): BoardRecord => {
    n++;
    return { id: hex('e', n), workspaceId: ws.id, moduleId: mod.id, collectionId, parentRecordId: parent?.id ?? null, name: `Record ${n}`, position: n % 7 === 0 ? null : n, isCompleted: false, isArchived: false, subRecordCount: 0, amendmentCount: 0, createdAt: AT, updatedAt: AT, raw: {} };
  };
  const setCell = (r: BoardRecord, col: Column): Cell => {
    const key = `${r.id}|${col.id}`;
    const value = rnd() < 0.15 ? null : col.type === 'relation' ? JSON.stringify([pick([...records.keys()])]) : `v${Math.floor(rnd() * 5)}`;
    const c: Cell = { id: cells.get(key)?.id ?? hex('f', (cells.size * 7919 + 13) % 100_003), recordId: r.id, columnId: col.id, value, createdAt: null, updatedAt: null, raw: {} };
    cells.set(key, c);
    return c;
  };
  const fits = (r: BoardRecord, c: Column): boolean => (c.scope === 'subrecord') === (r.parentRecordId !== null);
  const note = (r: BoardRecord): Amendment => ({ id: hex('9', notes.size + 1), workspaceId: ws.id, moduleId: shape === 'plain' ? mod.id : null, recordId: r.id, parentId: null, userId: null, message: `note ${notes.size + 1}`, edited: false, isDeleted: false, createdAt: AT, raw: {} });

  for (let i = 0; i < 30; i++) {
    const r = record(collections[i % 3]!.id, null);
    records.set(r.id, r);
    if (i % 4 === 0) {
      const sub = record(r.collectionId!, r);
      records.set(sub.id, sub);
    }
  }
  for (const r of records.values()) for (const c of columns) if (fits(r, c) && rnd() < 0.8) setCell(r, c);
  for (const r of [...records.values()].slice(0, 8)) notes.set(note(r).id, note(r));
  const other: Module = { ...mod, id: hex('b', 2), name: 'Crowded' };
  const otherRecord: BoardRecord = { ...record(collections[0]!.id, null), id: hex('7', 1), moduleId: other.id, collectionId: null };
  const otherNotes = crowded ? Array.from({ length: 400 }, (_, i): Amendment => ({ ...note(otherRecord), id: hex('8', i + 1), moduleId: other.id, recordId: otherRecord.id })) : [];
  const first = store.beginSnapshot('full');
  await store.apply(first, { upserts: { workspaces: [ws], modules: crowded ? [mod, other] : [mod], collections, columns, records: [...records.values(), ...(crowded ? [otherRecord] : [])], cells: [...cells.values()], amendments: [...otherNotes, ...notes.values()] } });
  store.finishSnapshot(first, 'complete', { requests: 0, durationMs: 0 });

  for (let p = 1; p <= passes; p++) {
    const up: Required<Pick<Upserts, 'records' | 'cells' | 'amendments'>> = { records: [], cells: [], amendments: [] };
    const gone: GoneMark[] = [];
    const live = (): BoardRecord[] => [...records.values()];
    const tops = (): BoardRecord[] => live().filter((r) => r.parentRecordId === null);
    const subs = (): BoardRecord[] => live().filter((r) => r.parentRecordId !== null);
    if (p === 2 && collections.length > 2) {
      // a collection deleted while its records stay (the deployed service keeps them, stranded)
      gone.push({ kind: 'collection', id: collections[2]!.id });
      collections = collections.slice(0, 2);
    }
    for (let k = 0; k < 12; k++) {
      const x = rnd();
      const r = pick(live());
      const edit = (changed: BoardRecord): void => {
        records.set(changed.id, changed);
        up.records.push(changed);
      };
      if (x < 0.35) {
        // a cell edited on a record that does not change
        const col = columns.filter((c) => fits(r, c));
        if (col.length) up.cells.push(setCell(r, pick(col)));
        // one of a deleted column (the service answers `column: null`), two in a record at times
        if (crowded && rnd() < 0.3) up.cells.push({ id: hex('6', parseInt(r.id.slice(1), 16) * 2 + Math.floor(rnd() * 2)), recordId: r.id, columnId: null, value: `orphan ${p}`, createdAt: null, updatedAt: null, raw: {} });
      } else if (x < 0.45) {
        // a parent renamed, one of its sub-records' cells edited
        const s = pick(subs().length ? subs() : live());
        const parent = s.parentRecordId ? records.get(s.parentRecordId) : undefined;
        if (parent) edit({ ...parent, name: `${parent.name} (p${p})` });
        const col = columns.filter((c) => fits(s, c));
        if (col.length) up.cells.push(setCell(s, pick(col)));
      } else if (x < 0.6) {
        edit({ ...r, collectionId: pick(collections).id });
      } else if (x < 0.67) {
        // under another parent, or out from under one
        const t = pick(tops().filter((o) => o.id !== r.id));
        if (r.parentRecordId) edit({ ...r, parentRecordId: rnd() < 0.5 ? null : t.id });
        else if (!subs().some((s) => s.parentRecordId === r.id)) edit({ ...r, parentRecordId: t.id });
      } else if (x < 0.77 && notes.size) {
        const a = pick([...notes.values()]);
        if (rnd() < 0.6) {
          const edited = { ...a, message: `${a.message} (p${p})`, edited: true };
          notes.set(a.id, edited);
          up.amendments.push(edited);
        } else {
          notes.delete(a.id);
          gone.push({ kind: 'amendment', id: a.id });
        }
      } else if (x < 0.85) {
        const a = note(r);
        notes.set(a.id, a);
        up.amendments.push(a);
      } else if (x < 0.92) {
        records.delete(r.id);
        for (const s of subs()) if (s.parentRecordId === r.id) records.delete(s.id);
        gone.push({ kind: 'record', id: r.id, cascade: true });
      } else {
        const made = record(pick(collections).id, rnd() < 0.3 ? pick(tops()) : null);
        records.set(made.id, made);
        up.records.push(made);
        for (const c of columns) if (fits(made, c) && rnd() < 0.6) up.cells.push(setCell(made, c));
      }
    }
    const snap = store.beginSnapshot('incremental');
    await store.apply(snap, { upserts: up, gone });
    store.finishSnapshot(snap, 'complete', { requests: 0, durationMs: 0 });
  }
  return mod.id;
}

describe('the rollback preview, reading only what changed, plans what the whole modules plan', () => {
  let tmp: { dir: string; cleanup: () => void } | undefined;
  afterEach(() => tmp?.cleanup());

  it.each<[number, Shape]>([
    [5, 'plain'],
    [23, 'plain'],
    [71, 'plain'],
    [97, 'plain'],
    [23, 'bare'],
    [5, 'crowded'],
    [71, 'crowded'],
  ])('seed %i (%s)', async (seed, shape) => {
    tmp = tempDir();
    const store = openStore(join(tmp.dir, 'window.db'));
    try {
      const moduleId = await buildHistory(store, seed, 7, shape);
      const latest = store.latestCompleteSnapshot()!;
      const seen = new Set<string>();
      for (const s of store.snapshotsHolding('module', moduleId).filter((x) => x < latest)) {
        for (const columnId of [undefined, ...store.stateAt(s)!.columns(moduleId).map((c) => c.id)]) {
          const slow = slowPreview(store, moduleId, s, 'rollback', columnId);
          for (const listed of [1, 9, 200]) {
            const fast = previewRecover(store, { moduleId, snapshot: s, scope: 'rollback', columnId, attribution: ATTRIBUTION, listed });
            expect(shownPreview(fast), `seed ${seed} snapshot ${s} ${columnId ?? ''} listed ${listed}`).toEqual({ ...slow, writes: slow.writes.slice(0, listed) });
          }
          for (const [k, v] of Object.entries(slow.counts as Record<string, number>)) if (v > 0) seen.add(k);
        }
      }
      // the shapes were there: fields and cells put back, notes posted again, records recreated
      for (const k of ['records', 'cells']) expect([...seen], k).toContain(k);
    } finally {
      store.close();
    }
  });
});

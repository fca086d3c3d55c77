// The recover previews count the cells of plain columns in SQL (store/read/module-census.ts) and plan
// every other cell; this holds them equal to the planners fed the whole modules on the shapes the
// random writes of recover-preview.test.ts never make: relation columns (into a module deleted
// since, and naming the module's own records), a column whose settings name another column, two
// columns naming each other (a cycle, not restorable), cells without a column or in a column the
// snapshot does not hold, cells without a value, records whose collection the snapshot does not
// hold, sub-records sitting in a collection not their parent's — and, across passes, cells set,
// cleared, deleted and created, records renamed, archived, deleted (with their sub-records) and
// added, a column and a collection deleted. Every snapshot, both scopes, each column's rollback,
// first pages of several sizes. Written through the store, as the bench's big module is.

import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Amendment, BoardRecord, Cell, Collection, Column, Module, Workspace } from '../../src/domain/entities.js';
import { openStore } from '../../src/store/index.js';
import type { GoneMark, Store, Upserts } from '../../src/store/port.js';
import { previewRecover } from '../../src/ui/recover-plan.js';
import { tempDir } from '../helpers/harness.js';
import { prng } from '../helpers/random-writes.js';
import { ATTRIBUTION, shownPreview as shown, slowPreview } from '../helpers/slow-preview.js';

const AT = '2026-01-01T00:00:00.000Z';
const hex = (prefix: string, n: number): string => `${prefix}${n.toString(16).padStart(24 - prefix.length, '0')}`;

/** A module with every shape above, then `passes` passes of random edits, written through the store. */
async function buildModule(store: Store, seed: number, passes: number): Promise<{ moduleId: string }> {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const ws: Workspace = { id: hex('a', 1), name: 'Census', slug: null, description: null, icon: null, banner: null, createdAt: AT, updatedAt: AT, raw: {} };
  const mod: Module = { id: hex('b', 1), workspaceId: ws.id, name: 'Shapes', description: null, icon: null, color: null, visibility: null, tags: [], createdAt: AT, updatedAt: AT, raw: {} };
  const dead: Module = { ...mod, id: hex('b', 2), name: 'Deleted after the first pass' };
  const collections: Collection[] = [1, 2, 3].map((i) => ({ id: hex('c', i), moduleId: mod.id, name: `Stage ${i}`, color: null, position: i, isCollapsed: false, tieRank: 0, raw: {} }));
  const column = (i: number, name: string, type: string, settings: Column['settings'], scope: Column['scope'] = 'record'): Column => ({
    id: hex('d', i), moduleId: mod.id, scope, name, type, position: i, width: null, isRequired: false, isHidden: false, statusOptions: null, settings, tieRank: 0, raw: {},
  });
  const columns: Column[] = [
    column(1, 'Text', 'text', null),
    column(2, 'Stage', 'status', {}),
    column(3, 'Linked', 'relation', { targetModule: dead.id }),
    column(4, 'Own links', 'relation', { targetModule: mod.id }),
    column(5, 'Shows text', 'reference', { via: hex('d', 4), column: hex('d', 1) }),
    column(6, 'Cycle A', 'reference', { via: hex('d', 7) }),
    column(7, 'Cycle B', 'reference', { via: hex('d', 6) }),
    column(8, 'Sub text', 'text', null, 'subrecord'),
    column(9, 'Dropped later', 'text', null),
  ];
  const records = new Map<string, BoardRecord>();
  const cells = new Map<string, Cell>();
  const notes: Amendment[] = [];
  let nextRecord = 1;
  let nextCell = 1;
  const record = (collectionId: string, parent: BoardRecord | null): BoardRecord => {
    const n = nextRecord++;
    return {
      id: hex('e', n), workspaceId: ws.id, moduleId: mod.id, collectionId, parentRecordId: parent?.id ?? null, name: `Record ${n}`,
      position: n % 5 === 0 ? 1 : n % 11 === 0 ? null : n, isCompleted: false, isArchived: false, subRecordCount: 0, amendmentCount: 0, createdAt: AT, updatedAt: AT, raw: {},
    };
  };
  const value = (col: string): string | null => {
    if (rnd() < 0.15) return null;
    if (col === hex('d', 3)) return JSON.stringify([hex('f', 9000 + Math.floor(rnd() * 3))]);
    if (col === hex('d', 4)) return JSON.stringify([pick([...records.keys()])]);
    return `v${Math.floor(rnd() * 4)}`;
  };
  const setCell = (r: BoardRecord, col: string | null, v: string | null): Cell => {
    const key = `${r.id}|${col}`;
    // ids in no particular order (the planners order cells by record, then id)
    const c: Cell = { id: cells.get(key)?.id ?? hex('f', (nextCell++ * 7919) % 100_003), recordId: r.id, columnId: col, value: v, createdAt: null, updatedAt: null, raw: {} };
    cells.set(key, c);
    return c;
  };
  const columnsOf = (r: BoardRecord, live: readonly Column[]): string[] => live.filter((c) => (c.scope === 'subrecord') === (r.parentRecordId !== null)).map((c) => c.id);

  // the first pass: every shape at once
  for (let i = 0; i < 24; i++) records.set(hex('e', nextRecord), record(i === 5 ? hex('c', 99) : collections[i % 3]!.id, null));
  const tops = [...records.values()];
  for (const parent of tops.slice(0, 4)) {
    const sub = record(parent === tops[1] ? collections[2]!.id : parent.collectionId!, parent);
    records.set(sub.id, sub);
  }
  for (const r of records.values()) for (const c of columnsOf(r, columns)) if (rnd() < 0.8) setCell(r, c, value(c));
  setCell(tops[2]!, null, 'no column');
  setCell(tops[3]!, hex('d', 77), 'a column the snapshot never held');
  for (const r of tops.slice(0, 6)) notes.push({ id: hex('9', notes.length + 1), workspaceId: ws.id, moduleId: mod.id, recordId: r.id, parentId: null, userId: null, message: `note on ${r.name}`, edited: false, isDeleted: false, createdAt: AT, raw: {} });
  const first = store.beginSnapshot('full');
  await store.apply(first, { upserts: { workspaces: [ws], modules: [mod, dead], collections, columns, records: [...records.values()], cells: [...cells.values()], amendments: notes } });
  store.finishSnapshot(first, 'complete', { requests: 0, durationMs: 0 });

  let liveColumns = columns;
  let liveCollections = collections;
  for (let p = 1; p <= passes; p++) {
    const up: Required<Pick<Upserts, 'records' | 'cells'>> = { records: [], cells: [] };
    const gone: GoneMark[] = [];
    if (p === 1) gone.push({ kind: 'module', id: dead.id, cascade: true });
    if (p === 2) {
      gone.push({ kind: 'column', id: hex('d', 9) });
      liveColumns = liveColumns.filter((c) => c.id !== hex('d', 9));
      for (const [k, c] of cells) if (c.columnId === hex('d', 9)) (cells.delete(k), gone.push({ kind: 'cell', id: c.id }));
    }
    if (p === 3) {
      const c3 = hex('c', 3);
      gone.push({ kind: 'collection', id: c3, cascade: true });
      liveCollections = liveCollections.filter((c) => c.id !== c3);
      for (const r of [...records.values()]) if (r.collectionId === c3 && r.parentRecordId === null) records.delete(r.id);
    }
    for (let k = 0; k < 30; k++) {
      const live = [...records.values()].filter((r) => !r.isArchived && (r.parentRecordId === null || records.has(r.parentRecordId)));
      const r = pick(live);
      const x = rnd();
      if (x < 0.6) {
        const col = pick(columnsOf(r, liveColumns));
        const before = cells.get(`${r.id}|${col}`);
        if (before && rnd() < 0.2) {
          cells.delete(`${r.id}|${col}`);
          gone.push({ kind: 'cell', id: before.id });
        } else up.cells.push(setCell(r, col, value(col)));
      } else if (x < 0.7) {
        const renamed = { ...r, name: `${r.name} (p${p})` };
        records.set(r.id, renamed);
        up.records.push(renamed);
      } else if (x < 0.75) {
        const archived = { ...r, isArchived: true };
        records.set(r.id, archived);
        up.records.push(archived);
      } else if (x < 0.83) {
        records.delete(r.id);
        for (const s of [...records.values()]) if (s.parentRecordId === r.id) records.delete(s.id);
        gone.push({ kind: 'record', id: r.id, cascade: true });
      } else {
        const made = record(pick(liveCollections).id, rnd() < 0.3 && r.parentRecordId === null ? r : null);
        records.set(made.id, made);
        up.records.push(made);
        for (const c of columnsOf(made, liveColumns)) if (rnd() < 0.6) up.cells.push(setCell(made, c, value(c)));
      }
    }
    const snap = store.beginSnapshot('incremental');
    await store.apply(snap, { upserts: up, gone });
    store.finishSnapshot(snap, 'complete', { requests: 0, durationMs: 0 });
  }
  return { moduleId: mod.id };
}

describe('recover previews with cells counted in SQL plan what the whole modules plan', () => {
  let tmp: { dir: string; cleanup: () => void } | undefined;
  afterEach(() => tmp?.cleanup());

  it.each([3, 17, 41])('seed %i', async (seed) => {
    tmp = tempDir();
    const store = openStore(join(tmp.dir, 'census.db'));
    try {
      const { moduleId } = await buildModule(store, seed, 6);
      const latest = store.latestCompleteSnapshot()!;
      const seen = new Set<string>();
      for (const s of store.snapshotsHolding('module', moduleId).filter((n) => n < latest)) {
        const columns = [undefined, ...store.stateAt(s)!.columns(moduleId).map((c) => c.id)];
        const cases = [['module', undefined] as const, ...columns.map((c) => ['rollback', c] as const)];
        for (const [scope, columnId] of cases) {
          const slow = slowPreview(store, moduleId, s, scope, columnId);
          for (const listed of [1, 7, 30, 200]) {
            const fast = previewRecover(store, { moduleId, snapshot: s, scope, columnId, attribution: ATTRIBUTION, listed });
            expect(shown(fast), `seed ${seed} snapshot ${s} ${scope} ${columnId ?? ''} listed ${listed}`).toEqual({ ...slow, writes: slow.writes.slice(0, listed) });
          }
          for (const [k, n] of Object.entries(slow.counts as Record<string, number>)) if (n > 0) seen.add(`${scope}:${k}`);
          for (const x of slow.notRestored as { entity: string }[]) seen.add(`${scope}:not restored ${x.entity}`);
        }
      }
      // the shapes were there: cells planned and counted, listed as not restorable, recreated
      for (const k of ['module:cells', 'module:not restored cell', 'module:not restored column', 'rollback:cells', 'rollback:records']) expect([...seen], k).toContain(k);
    } finally {
      store.close();
    }
  });
});

// A database holding one module of 10,000 records (6 cells each) with 100 passes of history — 100
// records renamed and re-valued per pass — written through the store, for the console's paging bench
// (the large seed spreads its 10,000 records over 20 modules).

import type { BoardRecord, Cell, Collection, Column, Module, Workspace } from '../domain/entities.js';
import { openStore } from '../store/index.js';
import type { GoneMark } from '../store/port.js';

const hex = (prefix: string, n: number): string => `${prefix}${n.toString(16).padStart(24 - prefix.length, '0')}`;
const AT = '2026-01-01T00:00:00.000Z';

export interface BigModule {
  moduleId: string;
  recordId: string;
  records: number;
  passes: number;
  buildMs: number;
}

/** One more pass over a big module's database, deleting 2,000 of its records: its first collection
 * with the records in it (the deployed service keeps them, stranded: the rollback preview reads
 * what the backup last held of each), or every fifth record (a bulk delete). Returns the snapshot. */
export async function deleteFromBigModule(dbPath: string, what: 'collection' | 'records'): Promise<number> {
  const store = openStore(dbPath);
  try {
    const snap = store.beginSnapshot('full');
    const gone: GoneMark[] =
      what === 'collection' ? [{ kind: 'collection', id: hex('c', 1), cascade: true }] : Array.from({ length: 2000 }, (_, i) => ({ kind: 'record' as const, id: hex('e', i * 5 + 2), cascade: true }));
    await store.apply(snap, { gone });
    store.finishSnapshot(snap, 'complete', { requests: 0, durationMs: 0 });
    return snap;
  } finally {
    store.close();
  }
}

export async function buildBigModuleDb(dbPath: string, records = 10_000, passes = 100): Promise<BigModule> {
  const t0 = performance.now();
  const store = openStore(dbPath);
  try {
    const ws: Workspace = { id: hex('a', 1), name: 'Bench workspace', slug: null, description: null, icon: null, banner: null, createdAt: AT, updatedAt: AT, raw: {} };
    const mod: Module = { id: hex('b', 1), workspaceId: ws.id, name: 'Ten thousand records', description: null, icon: null, color: null, visibility: null, tags: [], createdAt: AT, updatedAt: AT, raw: {} };
    const collections: Collection[] = Array.from({ length: 5 }, (_, i) => ({ id: hex('c', i + 1), moduleId: mod.id, name: `Stage ${i + 1}`, color: null, position: i, isCollapsed: false, tieRank: 0, raw: {} }));
    const columns: Column[] = Array.from({ length: 6 }, (_, i) => ({
      id: hex('d', i + 1), moduleId: mod.id, scope: 'record', name: `Field ${i + 1}`, type: 'text', position: i, width: null, isRequired: false, isHidden: false, statusOptions: null, settings: null, tieRank: 0, raw: {},
    }));
    const record = (i: number, version: number): BoardRecord => ({
      id: hex('e', i + 1), workspaceId: ws.id, moduleId: mod.id, collectionId: collections[i % 5]!.id, parentRecordId: null, name: `Record ${i + 1}${version ? ` v${version}` : ''}`,
      position: i, isCompleted: false, isArchived: false, subRecordCount: 0, amendmentCount: 0, createdAt: AT, updatedAt: AT, raw: {},
    });
    const cell = (i: number, c: number, version: number): Cell => ({ id: hex('f', i * 8 + c + 1), recordId: hex('e', i + 1), columnId: columns[c]!.id, value: `value ${i}/${c}${version ? ` v${version}` : ''}`, createdAt: AT, updatedAt: AT, raw: {} });

    const first = store.beginSnapshot('full');
    await store.apply(first, { upserts: { workspaces: [ws], modules: [mod], collections, columns } });
    for (let from = 0; from < records; from += 1000) {
      const ids = Array.from({ length: Math.min(1000, records - from) }, (_, k) => from + k);
      await store.apply(first, { upserts: { records: ids.map((i) => record(i, 0)), cells: ids.flatMap((i) => columns.map((_, c) => cell(i, c, 0))) } });
    }
    store.finishSnapshot(first, 'complete', { requests: 0, durationMs: 0 });
    for (let p = 1; p <= passes; p++) {
      const snap = store.beginSnapshot('incremental');
      const ids = Array.from({ length: 100 }, (_, k) => (p * 97 + k * 101) % records);
      await store.apply(snap, { upserts: { records: ids.map((i) => record(i, p)), cells: ids.map((i) => cell(i, p % 6, p)) } });
      store.finishSnapshot(snap, 'complete', { requests: 0, durationMs: 0 });
    }
    return { moduleId: mod.id, recordId: hex('e', 1 + 5000), records, passes, buildMs: Math.round(performance.now() - t0) };
  } finally {
    store.close();
  }
}

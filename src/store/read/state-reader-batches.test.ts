import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Activity } from '../../domain/entities.js';
import { makeActivity, makeAmendment, makeCell, makeCollection, makeModule, makeRecord, makeTempDir, makeWorkspace } from '../fixtures.js';
import { openStore } from '../open.js';
import type { Store } from '../port.js';

describe('StateReader batch reads', () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let store: Store;
  beforeEach(() => {
    tmp = makeTempDir();
    store = openStore(path.join(tmp.dir, 'b.db'));
  });
  afterEach(() => {
    store.close();
    tmp.cleanup();
  });

  it("is the workspace's feed filtered to one module (and from a time), oldest first, at every snapshot", async () => {
    const at = (min: number, ms = 0): string => new Date(Date.UTC(2026, 10, 1, 9, min, 0, ms)).toISOString();
    const rows: Activity[] = [];
    // two workspaces, two modules each, rows without a module, ties in time (ordered by id)
    for (let i = 0; i < 40; i++) {
      const ws = i % 5 === 0 ? 'w2' : 'w1';
      const moduleId = i % 7 === 0 ? null : `${ws}-m${i % 3 === 0 ? 1 : 2}`;
      rows.push(makeActivity(`a${String(39 - i).padStart(2, '0')}`, ws, { moduleId, recordId: `r${i % 4}`, columnId: i % 2 ? 'c1' : null, createdAt: at(Math.floor(i / 3)) }));
    }
    const s1 = store.beginSnapshot('full');
    await store.apply(s1, { upserts: { workspaces: [makeWorkspace('w1'), makeWorkspace('w2')], modules: ['w1-m1', 'w1-m2'].map((m) => makeModule(m, 'w1')), activity: rows.slice(0, 30) } });
    store.finishSnapshot(s1, 'complete', { requests: 0, durationMs: 0 });
    // the next pass: ten rows more, one of the first rows changed (a new version of it)
    const s2 = store.beginSnapshot('incremental');
    await store.apply(s2, { upserts: { activity: [...rows.slice(30), { ...rows[4]!, message: 'changed', createdAt: at(20) }] } });
    store.finishSnapshot(s2, 'complete', { requests: 0, durationMs: 0 });

    let compared = 0;
    for (const snapshot of [s1, s2]) {
      const state = store.stateAt(snapshot)!;
      for (const ws of ['w1', 'w2']) {
        const all = state.activity(ws);
        for (const m of ['w1-m1', 'w1-m2', 'w2-m1', 'w2-m2', 'none']) {
          for (const since of [undefined, '', at(4), at(4, 1), at(20), at(30)]) {
            const expected = all.filter((a) => a.moduleId === m && (since === undefined || a.createdAt >= since));
            expect(state.moduleActivity(ws, m, since)).toEqual(expected);
            compared += expected.length;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(100);
    // the changed row is its new version at s2 only
    expect(store.stateAt(s1)!.moduleActivity('w1', rows[4]!.moduleId!).find((a) => a.id === rows[4]!.id)?.message).toBeNull();
    expect(store.stateAt(s2)!.moduleActivity('w1', rows[4]!.moduleId!).find((a) => a.id === rows[4]!.id)?.message).toBe('changed');
  });

  it('contentOfRecords is cellsOfRecord and amendmentsOfRecord of each record, at every snapshot', async () => {
    const at = (min: number): string => new Date(Date.UTC(2026, 10, 1, 9, min)).toISOString();
    const ids = ['r1', 'r2', 'r3', 'r4'];
    const s1 = store.beginSnapshot('full');
    await store.apply(s1, {
      upserts: {
        workspaces: [makeWorkspace('w1')],
        modules: [makeModule('m1', 'w1')],
        collections: [makeCollection('c1', 'm1')],
        records: ids.map((id) => makeRecord(id, 'm1', 'c1')),
        // ids out of order, several per record; r4 has none
        cells: ['z', 'a', 'm'].flatMap((k, i) => ['r1', 'r2', 'r3'].map((r) => makeCell(`${r}-${k}`, r, `col${i}`))),
        amendments: [3, 1, 2].flatMap((n) => ['r1', 'r3'].map((r) => makeAmendment(`${r}-n${n}`, r, { createdAt: at(n % 2) }))),
      },
    });
    store.finishSnapshot(s1, 'complete', { requests: 0, durationMs: 0 });
    const s2 = store.beginSnapshot('incremental');
    await store.apply(s2, { upserts: { cells: [makeCell('r1-a', 'r1', 'col1', { value: 'changed' })], amendments: [makeAmendment('r2-n9', 'r2')] }, gone: [{ kind: 'cell', id: 'r3-z' }] });
    store.finishSnapshot(s2, 'complete', { requests: 0, durationMs: 0 });

    for (const snapshot of [s1, s2]) {
      const state = store.stateAt(snapshot)!;
      const batch = state.contentOfRecords([...ids, 'never']);
      for (const id of [...ids, 'never']) {
        const one = { cells: state.cellsOfRecord(id), amendments: state.amendmentsOfRecord(id) };
        if (one.cells.length + one.amendments.length === 0) expect(batch.has(id)).toBe(false);
        else expect(batch.get(id)).toEqual(one);
      }
    }
    expect(store.stateAt(s2)!.contentOfRecords(['r1']).get('r1')!.cells.find((c) => c.id === 'r1-a')!.value).toBe('changed');
    expect(store.stateAt(s2)!.contentOfRecords(['r2']).get('r2')!.amendments.map((a) => a.id)).toEqual(['r2-n9']);
    expect(store.stateAt(s1)!.contentOfRecords([])).toEqual(new Map());
  });
});

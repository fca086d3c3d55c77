import { describe, expect, it } from 'vitest';
import type { ColumnChange, ModuleChanges, Writer } from '../store/read/index.js';
import { blame, evaluateTripwire, undoArgv, undoLine, type TripwireThresholds } from './evaluate.js';

const T: TripwireThresholds = { recordsPercent: 20, minRecords: 10, cellsPercent: 30, minCells: 20, amendmentsPercent: 20, minAmendments: 10 };
const ada: Writer = { id: 'u1', name: 'Ada Lovelace', rows: 120, from: '2026-11-24T09:00:00.000Z', to: '2026-11-24T09:00:05.000Z' };
const bob: Writer = { id: 'u2', name: 'Bob', rows: 1, from: '2026-11-24T09:00:07.000Z', to: '2026-11-24T09:00:07.000Z' };

function changes(over: Partial<ModuleChanges> = {}): ModuleChanges {
  return {
    workspaceId: 'w1',
    moduleId: 'm1',
    moduleName: 'Hiring',
    moduleGone: false,
    records: { before: 400, removed: 0 },
    amendments: { before: 50, deleted: 0 },
    columns: [],
    collectionsDeleted: [],
    actors: [ada],
    ownWrites: 0,
    ...over,
  };
}

const col = (over: Partial<ColumnChange>): ColumnChange => ({ columnId: 'k1', name: 'Stage', before: 400, added: 0, changed: 0, removed: 0, deleted: false, writers: [ada], ...over });

describe('evaluateTripwire', () => {
  it('a normal day does not trip it: a few records, a few cells, an amendment or two', () => {
    const day = changes({ records: { before: 400, removed: 3 }, amendments: { before: 50, deleted: 2 }, columns: [col({ changed: 25, removed: 2 })] });
    expect(evaluateTripwire([day], T, 7, 8)).toEqual([]);
  });

  it('a bulk overwrite of one column trips it, pinned to that column, the actor who did it and when', () => {
    const bulk = changes({ columns: [col({ changed: 390, writers: [ada, bob] })], actors: [ada, bob] });
    const [f] = evaluateTripwire([bulk], T, 7, 8);
    expect(f).toMatchObject({ kind: 'mass-change', moduleId: 'm1', snapshot: 7, damageSnapshot: 8, columns: ['k1'], kinds: ['cells'], damageFrom: ada.from, damageTo: ada.to, feedRows: 120 });
    // the member who fixed one row in the same window is not blamed
    expect(f!.by).toEqual([{ id: 'u1', name: 'Ada Lovelace', rows: 120 }]);
    expect(f!.summary).toBe('mass change in module Hiring by Ada Lovelace (120 rows): column Stage: 0 added · 390 changed · 0 removed (390 of 400 cells, 98%)');
    expect(undoLine(undoArgv(f!, 5)!)).toBe('wbsync rollback --incident 5 --pause-automations');
  });

  it('counts as the console does: newly filled cells are added, a cell written with the value it held is no change', () => {
    // the reported case: 40 rows, 15 were empty, 7 already held the value, 18 changed
    const [f] = evaluateTripwire([changes({ records: { before: 40, removed: 0 }, columns: [col({ before: 25, added: 15, changed: 18 })] })], { ...T, minCells: 5 }, 1, 2);
    expect(f!.what).toEqual(['column Stage: 15 added · 18 changed · 0 removed (33 of 40 cells, 83%)']);
  });

  it('a deleted module trips it, names who deleted it, and its undo is restore module from the snapshot before', () => {
    const [f] = evaluateTripwire([changes({ moduleGone: true })], T, 12, 13);
    expect(f).toMatchObject({ kind: 'module-deleted', summary: 'module Hiring was deleted by Ada Lovelace (120 rows)', by: [{ id: 'u1', name: 'Ada Lovelace', rows: 120 }] });
    expect(undoLine(undoArgv(f!, 1)!)).toBe('wbsync restore module m1 --snapshot 12 --pause-automations');
  });

  it('records archived in bulk, a deleted column, and deleted threads: the whole module, pinned to its actors', () => {
    const f = evaluateTripwire(
      [changes({ records: { before: 100, removed: 30 }, amendments: { before: 40, deleted: 12 }, columns: [col({ columnId: 'k2', name: 'Owner', before: 80, removed: 80, deleted: true })], collectionsDeleted: [{ id: 'c1', name: 'Done' }] })],
      T,
      3,
      4,
    )[0]!;
    expect(f.what).toEqual(['30 of 100 records archived or deleted (30%)', 'column Owner deleted with its 80 cells', '12 of 40 amendments deleted (30%)', 'collections deleted: Done']);
    expect(f).toMatchObject({ columns: [], kinds: [], damageFrom: ada.from });
    expect(undoLine(undoArgv(f, 9)!)).toBe('wbsync rollback --incident 9 --pause-automations');
  });

  it('needs both the share and the minimum count', () => {
    // 100% of a tiny module is below the minimum; 10% of a large one is below the share
    expect(evaluateTripwire([changes({ records: { before: 5, removed: 5 } })], T, 1, 2)).toEqual([]);
    expect(evaluateTripwire([changes({ records: { before: 1000, removed: 100 } })], T, 1, 2)).toEqual([]);
    expect(evaluateTripwire([changes({ records: { before: 1000, removed: 201 } })], T, 1, 2)).toHaveLength(1);
  });
});

describe('blame', () => {
  it('the actors who did most of it, never a one-row fix beside a bulk', () => {
    expect(blame([bob, ada]).map((w) => w.id)).toEqual(['u1']);
    // two people sharing a bulk are both blamed
    const eve = { ...ada, id: 'u3', rows: 100 };
    expect(blame([ada, eve, bob]).map((w) => w.id)).toEqual(['u1', 'u3']);
    // alone, even one row is someone's
    expect(blame([bob]).map((w) => w.id)).toEqual(['u2']);
  });
});

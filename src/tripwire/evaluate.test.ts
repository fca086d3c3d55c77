import { describe, expect, it } from 'vitest';
import type { ModuleChanges } from '../store/change-counts.js';
import { evaluateTripwire, type TripwireThresholds } from './evaluate.js';

const T: TripwireThresholds = { recordsPercent: 20, minRecords: 10, cellsPercent: 30, minCells: 20, amendmentsPercent: 20, minAmendments: 10 };

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
    actors: [{ id: 'u1', name: 'Ada Lovelace', rows: 120 }],
    ...over,
  };
}

describe('evaluateTripwire', () => {
  it('a normal day does not trip it: a few records, a few cells, a note or two', () => {
    const day = changes({ records: { before: 400, removed: 3 }, amendments: { before: 50, deleted: 2 }, columns: [{ columnId: 'k1', name: 'Stage', before: 400, changed: 25, cleared: 2, deleted: false }] });
    expect(evaluateTripwire([day], T, 7)).toEqual([]);
  });

  it('a bulk overwrite of one column trips it and names the rollback of that column only', () => {
    const bulk = changes({ columns: [{ columnId: 'k1', name: 'Stage', before: 400, changed: 390, cleared: 0, deleted: false }] });
    const [f] = evaluateTripwire([bulk], T, 7);
    expect(f).toMatchObject({ moduleId: 'm1', snapshot: 7, undo: 'wbsync rollback --module m1 --to-snapshot 7 --column k1' });
    expect(f!.summary).toBe('mass change in module Hiring by Ada Lovelace (120 rows): 390 of 400 cells of column Stage changed or cleared (98%: 390 changed, 0 cleared)');
  });

  it('a deleted module trips it and names restore module from the snapshot before', () => {
    const [f] = evaluateTripwire([changes({ moduleGone: true })], T, 12);
    expect(f).toMatchObject({ undo: 'wbsync restore module m1 --snapshot 12', summary: 'module Hiring was deleted by Ada Lovelace (120 rows)' });
  });

  it('records archived in bulk, a deleted column, and deleted threads: the whole module is rolled back', () => {
    const f = evaluateTripwire(
      [changes({ records: { before: 100, removed: 30 }, amendments: { before: 40, deleted: 12 }, columns: [{ columnId: 'k2', name: 'Owner', before: 80, changed: 0, cleared: 80, deleted: true }], collectionsDeleted: [{ id: 'c1', name: 'Done' }] })],
      T,
      3,
    )[0]!;
    expect(f.what).toEqual(['30 of 100 records archived or deleted (30%)', 'column Owner deleted with its 80 cells', '12 of 40 amendments deleted (30%)', 'collections deleted: Done']);
    expect(f.undo).toBe('wbsync rollback --module m1 --to-snapshot 3');
  });

  it('needs both the share and the minimum count', () => {
    // 100% of a tiny module is below the minimum; 10% of a large one is below the share
    expect(evaluateTripwire([changes({ records: { before: 5, removed: 5 } })], T, 1)).toEqual([]);
    expect(evaluateTripwire([changes({ records: { before: 1000, removed: 100 } })], T, 1)).toEqual([]);
    expect(evaluateTripwire([changes({ records: { before: 1000, removed: 201 } })], T, 1)).toHaveLength(1);
  });
});

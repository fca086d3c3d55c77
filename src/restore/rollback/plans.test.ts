import { describe, expect, it } from 'vitest';
import { cell, col, coll, mod, amendment, rec, automation } from '../fixtures.test-helpers.js';
import { allSteps, type Step } from '../engine/plan-steps.js';
import { planRollback, ROLLBACK_KINDS, type RollbackInput, type RollbackSelection } from './plan.js';
import type { ModuleTree } from '../engine/tree.js';

// A board with a parent and two sub-records (one archived), a relation column and a reference
// going through it, and automations naming a column and a collection.
function tree(over: Partial<ModuleTree> = {}): ModuleTree {
  return {
    module: mod('m1'),
    collections: [coll('c1', 'Todo', 0), coll('c2', 'Later', 1)],
    columns: [
      col('k-rel', 'Customer', { type: 'relation', position: 0, settings: { targetModule: 'm2', displayField: 'f1' } }),
      col('k-ref', 'Customer value', { type: 'reference', position: 1, settings: { via: 'k-rel', field: 'f1', aggregate: 'sum' } }),
      col('k-text', 'Notes', { position: 2 }),
    ],
    records: [rec('r1', 'Parent'), rec('s1', 'Step', { parentRecordId: 'r1' }), rec('s2', 'Old step', { parentRecordId: 'r1', position: 1, isArchived: true }), rec('r2', 'Other', { position: 1 })],
    cells: [cell('v1', 'r1', 'k-rel', '["x1"]'), cell('v2', 'r1', 'k-text', 'hello'), cell('v3', 's1', 'k-text', 'sub')],
    amendments: [amendment('a1', 'r1', 'first')],
    automations: [],
    grants: null,
    ...over,
  };
}
const all: RollbackSelection = { kinds: new Set(ROLLBACK_KINDS), kindsNamed: false, columns: null, records: null, collections: null, touched: null };
const plan = (base: ModuleTree, live: ModuleTree, over: Partial<RollbackInput> = {}) =>
  planRollback({ base, after: live, live, selection: all, force: false, workspaceId: 'ws', attribution: '', ...over });
const ops = (steps: Step[]): string[] => steps.map((s) => `${s.op}:${'target' in s ? s.target : 'oldId' in s ? s.oldId : ''}`);
const without = (t: ModuleTree, ids: string[]): ModuleTree => ({ ...t, records: t.records.filter((r) => !ids.includes(r.id)), cells: t.cells.filter((c) => !ids.includes(c.recordId)), amendments: t.amendments.filter((a) => !ids.includes(a.recordId)) });

describe('rollback planners', () => {
  it('a row the service deleted comes back in the same run, with every sub-record (archived ones archived), cells and amendments', () => {
    const p = plan(tree(), without(tree(), ['r1', 's1', 's2']));
    expect(p.plan.notRestored).toEqual([]);
    expect(ops(allSteps(p.plan))).toEqual(['createRecord:r1', 'createSubRecord:s1', 'createSubRecord:s2', 'createCell:v1', 'createCell:v2', 'createCell:v3', 'createAmendment:a1', 'archiveRecord:s2']);
    for (const id of ['r1', 's1', 's2']) expect(p.liveIds.has(id)).toBe(false);
  });

  it('a sub-record deleted alone is made anew under its live parent', () => {
    const p = plan(tree(), without(tree(), ['s1']));
    const steps = allSteps(p.plan);
    expect(ops(steps)).toEqual(['createSubRecord:s1', 'createCell:v3']);
    expect(steps[0]).toMatchObject({ parent: 'r1' });
    expect(steps[1]).toMatchObject({ collection: 'c1' });
    expect(p.liveIds.get('r1')).toBe('record');
  });

  it('rows the service archived on delete (found by id) come back in place: one PUT each, a sub-record archived at the snapshot left so', () => {
    const live = tree();
    const found = new Map([['r1', 'archived'], ['s1', 'archived'], ['s2', 'archived']] as const);
    const steps = allSteps(plan(tree(), live, { found }).plan);
    expect(ops(steps)).toEqual(['updateRecord:r1', 'updateRecord:s1']);
    expect(steps[0]).toMatchObject({ body: { name: 'Parent', position: 0, isCompleted: false, isArchived: false } });
  });

  it('--kinds without records: a deleted row is named with the command that brings it back, its cells and amendments not listed', () => {
    const p = plan(tree(), without(tree(), ['r2', 'r1', 's1', 's2']), { selection: { ...all, kinds: new Set(['cells', 'amendments']), kindsNamed: true } });
    expect(p.plan.notRestored.map((n) => [n.id, n.reason])).toEqual([
      ['r1', "deleted since the snapshot (--kinds leaves records out): bring it back with wbsync restore records r1"],
      ['r2', "deleted since the snapshot (--kinds leaves records out): bring it back with wbsync restore records r2"],
    ]);
  });

  it('a hostile record id in the printed command is one shell word', () => {
    const base = tree({ records: [rec('r1; rm -rf ~', 'Parent')], cells: [], amendments: [] });
    const p = plan(base, tree({ records: [], cells: [], amendments: [] }), { selection: { ...all, kinds: new Set(['cells']), kindsNamed: true } });
    expect(p.plan.notRestored[0]!.reason).toContain("wbsync restore records 'r1; rm -rf ~'");
  });

  it('a recreated relation column: the reference going through it is re-pointed (its field writes folded in), after the relation exists', () => {
    const base = tree();
    const live = tree({ columns: [col('k-ref', 'Renamed', { type: 'reference', position: 1, settings: { via: 'k-rel', field: 'f1', aggregate: 'sum' } }), col('k-text', 'Notes', { position: 2 })], cells: [cell('v2', 'r1', 'k-text', 'hello'), cell('v3', 's1', 'k-text', 'sub')] });
    const p = plan(base, live);
    expect(p.plan.phases.map((x) => [x.name, ops(x.steps)])).toEqual([
      ['columns', ['createColumn:k-rel']],
      ['columns re-pointed at recreated ones', ['repointColumn:k-ref']],
      ['records and cells', ['createCell:v1']],
    ]);
    const step = p.plan.phases[1]!.steps[0] as Extract<Step, { op: 'repointColumn' }>;
    expect(step).toMatchObject({ settings: { refs: ['k-rel'] }, body: { name: 'Customer value' }, remake: { name: 'Customer value', type: 'reference', scope: 'record' }, then: { position: 1, width: 180 } });
    expect(p.liveIds.has('k-ref')).toBe(false);
    expect(p.repoint).toEqual([{ entity: 'column', id: 'k-ref', name: 'Renamed', type: 'reference', names: ['k-rel'] }]);
  });

  it("the module's own relation column naming a recreated column: re-pointed in place or declared, never made anew; its damaged cells written on it as a live column's", () => {
    // a relation between the module's own rows showing Notes; the damage deleted Notes and changed a link
    const self = (k: ModuleTree['columns']): ModuleTree['columns'] => k.map((c) => (c.id === 'k-rel' ? { ...c, settings: { targetModule: 'm1', displayField: 'k-text' } } : c));
    const base = tree({ columns: self(tree().columns) });
    const live = tree({ columns: self(tree().columns).filter((c) => c.id !== 'k-text'), cells: [cell('v1', 'r1', 'k-rel', '["r2"]')] });
    const p = plan(base, live);
    const steps = allSteps(p.plan);
    const repoint = steps.find((x) => x.op === 'repointColumn' && x.target === 'k-rel') as Extract<Step, { op: 'repointColumn' }>;
    expect(repoint.inPlaceOnly).toContain('point column Customer at column Notes (made anew by this rollback) again by hand');
    expect(steps.find((x) => x.op === 'setCell' && x.target === 'v1')).toMatchObject({ value: { value: '["x1"]' } });
    expect(p.repoint).toContainEqual({ entity: 'column', id: 'k-rel', name: 'Customer', type: 'relation', names: ['k-text'] });
  });

  it('a reference whose relation is recreated too is made after it; automations naming a recreated column or collection are re-pointed', () => {
    const base = tree();
    const live = tree({ collections: [coll('c1', 'Todo', 0)], columns: [col('k-text', 'Notes', { position: 2 })], cells: [cell('v2', 'r1', 'k-text', 'hello'), cell('v3', 's1', 'k-text', 'sub')] });
    const automations = [
      automation('au1', 'Mover', { trigger: { type: 'column_changed', column: 'k-rel' }, actions: [{ type: 'move_to_collection', collectionName: 'c2' }] }),
      automation('au2', 'Untouched', { trigger: { type: 'column_changed', column: 'k-text' } }),
      automation('au3', 'Workspace', { scope: 'workspace', moduleId: null, actions: [{ type: 'move_to_collection', collectionName: 'c2' }] }),
    ];
    const p = plan(base, live, { automations });
    expect(p.plan.phases.map((x) => x.name)).toEqual(['collections', 'columns', 'columns naming recreated columns', 'records and cells', 'automations re-pointed at recreated objects']);
    expect(p.plan.phases.at(-1)!.steps).toEqual([
      { op: 'repointAutomation', key: 'repoint-automation:au1', target: 'au1', scope: 'module', owner: 'm1', refs: ['k-rel', 'c2'], label: 'Mover' },
      { op: 'repointAutomation', key: 'repoint-automation:au3', target: 'au3', scope: 'workspace', owner: 'ws', refs: ['c2'], label: 'Workspace' },
    ]);
    expect(p.plan.notRestored).toEqual([]);
  });

  it('what names a deleted column the selection leaves out is declared: it still points at nothing', () => {
    const base = tree();
    const live = tree({ columns: [col('k-ref', 'Customer value', { type: 'reference', position: 1, settings: { via: 'k-rel', field: 'f1', aggregate: 'sum' } }), col('k-text', 'Notes', { position: 2 })] });
    const automations = [automation('au1', 'Watcher', { trigger: { type: 'column_changed', column: 'k-rel' } })];
    const p = plan(base, live, { automations, selection: { ...all, kinds: new Set(['cells']), kindsNamed: true } });
    expect(p.plan.notRestored.map((n) => [n.entity, n.id])).toEqual([['column', 'k-ref'], ['automation', 'au1']]);
    expect(p.plan.notRestored[1]!.reason).toContain('column "Customer" (k-rel), deleted since the snapshot and left out of this rollback');
  });
});

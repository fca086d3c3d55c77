import { describe, expect, it } from 'vitest';
import { cell, col, coll, amendment, rec } from '../fixtures.test-helpers.js';
import { allSteps, type Step } from '../engine/plan-steps.js';
import { planRollback, ROLLBACK_KINDS, type RollbackInput, type RollbackSelection } from './plan.js';
import type { ModuleTree } from '../engine/tree.js';
import { mod } from '../fixtures.test-helpers.js';

function tree(over: Partial<ModuleTree> = {}): ModuleTree {
  return {
    module: mod('m1'),
    collections: [coll('c1', 'Todo', 0), coll('c2', 'Done', 1)],
    columns: [col('k-status', 'Status', { type: 'status', statusOptions: [{ label: 'Done', color: '#000000' }] }), col('k-text', 'Notes', { position: 1 })],
    records: [rec('r1', 'Alpha'), rec('r2', 'Beta', { position: 1 }), rec('s1', 'Step', { parentRecordId: 'r1' })],
    cells: [cell('v1', 'r1', 'k-status', 'Done'), cell('v2', 'r2', 'k-status', 'Done'), cell('v3', 'r1', 'k-text', 'hello')],
    amendments: [amendment('a1', 'r1', 'first'), amendment('a2', 'r1', 'reply', { parentId: 'a1' })],
    automations: [],
    grants: null,
    ...over,
  };
}

const all: RollbackSelection = { kinds: new Set(ROLLBACK_KINDS), kindsNamed: false, columns: null, records: null, collections: null, touched: null };

function plan(base: ModuleTree, after: ModuleTree, live: ModuleTree, over: Partial<RollbackInput> = {}) {
  return planRollback({ base, after, live, selection: all, force: false, workspaceId: 'ws', attribution: 'by {author}', ...over });
}

const ops = (steps: Step[]): string[] => steps.map((s) => `${s.op}:${'target' in s ? s.target : 'oldId' in s ? s.oldId : ''}`);

describe('planRollback', () => {
  it('puts back what the damage changed and nobody touched since; a later edit is a conflict, kept', () => {
    const base = tree();
    const damaged = tree({ cells: [cell('v1', 'r1', 'k-status', 'Stuck'), cell('v2', 'r2', 'k-status', 'Stuck'), cell('v3', 'r1', 'k-text', 'hello')] });
    // after the damage someone set r2's status again by hand
    const live = tree({ cells: [cell('v1', 'r1', 'k-status', 'Stuck'), cell('v2', 'r2', 'k-status', 'Working'), cell('v3', 'r1', 'k-text', 'hello')] });
    const p = plan(base, damaged, live);
    expect(ops(allSteps(p.plan))).toEqual(['setCell:v1']);
    expect(p.conflicts).toEqual([expect.objectContaining({ entity: 'cell', id: 'v2', live: 'Working', base: 'Done', after: 'Stuck' })]);
    expect(p.writes.map((w) => w.id)).toEqual(['v1']);
    // --force writes the conflict too
    const forced = plan(base, damaged, live, { force: true });
    expect(ops(allSteps(forced.plan))).toEqual(['setCell:v1', 'setCell:v2']);
  });

  it('clears a cell set since, and creates one cleared since', () => {
    const base = tree({ cells: [cell('v1', 'r1', 'k-status', 'Done')] });
    const damaged = tree({ cells: [cell('v9', 'r2', 'k-status', 'Stuck')] });
    const p = plan(base, damaged, damaged);
    expect(ops(allSteps(p.plan)).sort()).toEqual(['clearCell:v9', 'createCell:v1']);
    const create = allSteps(p.plan).find((s) => s.op === 'createCell') as Extract<Step, { op: 'createCell' }>;
    expect(create).toMatchObject({ record: 'r1', column: 'k-status', collection: 'c1', module: 'm1' });
    expect(p.liveIds.get('r1')).toBe('record');
  });

  it('a cell of a sub-record whose parent no side holds is declared, not planned (and does not throw)', () => {
    // the parent r1 was marked gone without its sub-record s1 (neither side holds r1); s1's cell was cleared
    const records = [rec('r2', 'Beta', { position: 1 }), rec('s1', 'Step', { parentRecordId: 'r1' })];
    const base = tree({ records, cells: [cell('v4', 's1', 'k-status', 'Done')] });
    const live = tree({ records, cells: [] });
    const p = plan(base, live, live);
    expect(allSteps(p.plan).filter((s) => s.op === 'createCell')).toEqual([]);
    expect(p.plan.notRestored).toEqual(expect.arrayContaining([expect.objectContaining({ entity: 'cell', id: 'v4', reason: expect.stringContaining('r1') })]));
  });

  it('record fields back in one write per record; an archived record is un-archived in place', () => {
    const base = tree();
    const damaged = tree({ records: [rec('r1', 'Renamed', { collectionId: 'c2', isArchived: true }), rec('r2', 'Beta', { position: 1 }), rec('s1', 'Step', { parentRecordId: 'r1' })] });
    const p = plan(base, damaged, damaged);
    const steps = allSteps(p.plan);
    // archived now: its fields cannot be read live (no listing shows it), so every field goes back
    expect(steps).toEqual([expect.objectContaining({ op: 'updateRecord', target: 'r1', body: { name: 'Alpha', position: 0, isCompleted: false, isArchived: false }, collection: 'c1' })]);
  });

  it('recreates a deleted column with its cells, and only cells of the selected column', () => {
    const base = tree();
    const live = tree({ columns: [col('k-status', 'Status', { type: 'status', statusOptions: [{ label: 'Done', color: '#000000' }] })], cells: [cell('v1', 'r1', 'k-status', 'Stuck'), cell('v2', 'r2', 'k-status', 'Done')] });
    const p = plan(base, live, live, { selection: { ...all, columns: new Set(['k-text']) } });
    expect(ops(allSteps(p.plan))).toEqual(['createColumn:k-text', 'createCell:v3']);
    expect(p.counts.columnsRecreated).toBe(1);
  });

  it('leaves alone the cells of a column made since (a copy recreated by an earlier, interrupted run too)', () => {
    const base = tree();
    const live = tree({ columns: [...tree().columns, col('k-new', 'Added later')], cells: [...tree().cells, cell('v9', 'r1', 'k-new', 'x')] });
    expect(allSteps(plan(base, live, live, { force: true }).plan)).toEqual([]);
  });

  it('reposts a deleted thread (parent before reply) with the attribution line; an edited amendment gets its text back', () => {
    const base = tree();
    const live = tree({ amendments: [] });
    const p = plan(base, live, live);
    const posted = allSteps(p.plan).filter((s) => s.op === 'createAmendment') as Extract<Step, { op: 'createAmendment' }>[];
    expect(posted.map((n) => [n.oldId, n.parent, n.chain])).toEqual([['a1', null, 'notes:r1'], ['a2', 'a1', 'notes:r1']]);
    expect(posted[0].message).toBe('first\n\nby u1');
    const edited = tree({ amendments: [amendment('a1', 'r1', 'changed'), amendment('a2', 'r1', 'reply', { parentId: 'a1' })] });
    expect(ops(allSteps(plan(base, edited, edited).plan))).toEqual(['updateAmendment:a1']);
  });

  it('lists records created since; archives them only when --kinds names records', () => {
    const base = tree();
    const live = tree({ records: [...tree().records, rec('r9', 'Imported')] });
    expect(plan(base, live, live).newRecords).toEqual([{ id: 'r9', name: 'Imported', archived: false }]);
    expect(allSteps(plan(base, live, live).plan)).toEqual([]);
    const named = plan(base, live, live, { selection: { ...all, kinds: new Set(['records']), kindsNamed: true } });
    expect(ops(allSteps(named.plan))).toEqual(['archiveRecord:r9']);
  });

  it('follows the feed: only what it shows changed is put back', () => {
    const base = tree();
    const damaged = tree({ cells: [cell('v1', 'r1', 'k-status', 'Stuck'), cell('v2', 'r2', 'k-status', 'Stuck'), cell('v3', 'r1', 'k-text', 'hello')] });
    const touched = { records: new Set(['r2']), recordFields: new Map(), columns: new Set<string>(), collections: new Set<string>(), cells: new Set(['r2|k-status']) };
    expect(ops(allSteps(plan(base, damaged, damaged, { selection: { ...all, touched } }).plan))).toEqual(['setCell:v2']);
    // per field: the feed shows the rename, not the completion a person made
    const renamed = tree({ records: [rec('r1', 'Renamed', { isCompleted: true }), rec('r2', 'Beta', { position: 1 }), rec('s1', 'Step', { parentRecordId: 'r1' })] });
    const byFeed = { ...touched, records: new Set(['r1']), recordFields: new Map([['r1', new Set(['name'])]]), cells: new Set<string>() };
    expect(allSteps(plan(base, renamed, renamed, { selection: { ...all, touched: byFeed } }).plan)).toEqual([expect.objectContaining({ op: 'updateRecord', target: 'r1', body: { name: 'Alpha' } })]);
  });

  it('recreates the records a deleted collection took with it (the published service cascades), with sub-records, cells and amendments', () => {
    const base = tree();
    const live = tree({ collections: [coll('c2', 'Done', 1)], records: [], cells: [], amendments: [] });
    const steps = allSteps(plan(base, live, live, { selection: { ...all, kinds: new Set(['collections']) } }).plan);
    expect(ops(steps)).toEqual(['createCollection:c1', 'createRecord:r1', 'createRecord:r2', 'createSubRecord:s1', 'createCell:v1', 'createCell:v2', 'createCell:v3', 'createAmendment:a1', 'createAmendment:a2']);
    expect(steps.find((s) => s.op === 'createRecord' && s.oldId === 'r1')).toMatchObject({ collection: 'c1' });
  });

  it('recreates a deleted collection and moves its records back into the copy', () => {
    const base = tree();
    const live = tree({ collections: [coll('c2', 'Done', 1)] });
    const p = plan(base, live, live, { selection: { ...all, kinds: new Set(['collections']) } });
    const steps = allSteps(p.plan);
    expect(ops(steps)).toEqual(['createCollection:c1', 'updateRecord:r1', 'updateRecord:r2', 'updateRecord:s1']); // the sub-record carried c1 too
    expect(steps[1]).toMatchObject({ collection: 'c1', body: {} });
  });

  it('a recreated sub-record that sat in another, live collection goes back there: that collection is live, not planned', () => {
    const base = tree({ records: [rec('r1', 'Alpha'), rec('s1', 'Step', { parentRecordId: 'r1', collectionId: 'c2' })], cells: [], amendments: [] });
    const live = tree({ collections: [coll('c2', 'Done', 1)], records: [], cells: [], amendments: [] });
    const p = plan(base, live, live, { selection: { ...all, kinds: new Set(['collections']) } });
    expect(allSteps(p.plan).find((s) => s.op === 'createSubRecord')).toMatchObject({ oldId: 's1', placeIn: 'c2' });
    expect(p.liveIds.get('c2')).toBe('collection');
  });

  it('says so when a record recreated with its collection was never seen in a list (archived before the first backup)', () => {
    const base = tree({ records: [rec('r1', 'Alpha'), rec('r2', 'Hidden', { position: null, isArchived: true })], cells: [], amendments: [] });
    const live = tree({ collections: [coll('c2', 'Done', 1)], records: [], cells: [], amendments: [] });
    const p = plan(base, live, live, { selection: { ...all, kinds: new Set(['collections']) } });
    expect(p.plan.notRestored).toEqual([expect.objectContaining({ entity: 'record', id: 'r2', reason: expect.stringContaining('position was never seen') })]);
  });
});


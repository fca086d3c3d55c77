import { describe, expect, it } from 'vitest';
import { planRestore } from './plan.js';
import { allSteps, type Step } from '../engine/plan-steps.js';
import { resolveCell, resolveRefs } from '../engine/remap.js';
import { sampleTree } from '../fixtures.test-helpers.js';

const input = () => ({
  tree: sampleTree(),
  targetWorkspaceId: 'ws',
  liveModuleIds: new Set(['m-live']),
  moduleNames: new Map([['m-dead', 'Customers']]),
  memberIds: new Set(['u1', 'u2']),
  userNames: new Map([['u1', 'Ada Lovelace']]),
  attribution: 'by {author} at {createdAt}',
});

const newIds = (old: string): string => `new-${old}`;

describe('planRestore', () => {
  it('should order the service-safe way: structure, every column before any sub-record, content, automations last', () => {
    const plan = planRestore(input());
    const names = plan.phases.map((p) => p.name);
    expect(names).toEqual([
      'module',
      'module settings',
      'collections',
      'columns',
      'records',
      'sub-records',
      'seeded columns',
      'cells',
      'amendments',
      'archival',
      'grants',
      'automations',
    ]);
    const steps = allSteps(plan);
    const at = (pred: (s: Step) => boolean): number => steps.findIndex(pred);
    const lastColumn = Math.max(...steps.map((s, i) => (s.op === 'createColumn' ? i : -1)));
    expect(lastColumn).toBeLessThan(at((s) => s.op === 'createSubRecord'));
    // the relation column comes before the reference through it; the display field before both
    expect(at((s) => s.op === 'createColumn' && s.oldId === 'k-name')).toBeLessThan(at((s) => s.op === 'createColumn' && s.oldId === 'k-rel'));
    expect(at((s) => s.op === 'createColumn' && s.oldId === 'k-rel')).toBeLessThan(at((s) => s.op === 'createColumn' && s.oldId === 'k-ref'));
    // …and waits for them in one chain (the phase runs chains concurrently)
    const chainOf = (id: string) => steps.find((s) => s.op === 'createColumn' && s.oldId === id)?.chain;
    expect(chainOf('k-rel')).toBeDefined();
    expect(new Set([chainOf('k-name'), chainOf('k-rel'), chainOf('k-ref')]).size).toBe(1);
    // collections in position order, each with its position re-applied
    const colls = steps.filter((s) => s.op === 'createCollection');
    expect(colls.map((s) => s.op === 'createCollection' && s.body.name)).toEqual(['Todo', 'Done']);
    expect(plan.counts).toMatchObject({ collections: 2, columns: 7, records: 2, subRecords: 1, cells: 4, amendments: 3, grants: 1, automations: 1 });
  });

  it('should remap ids inside settings, relation cells and automations; live ids stay', () => {
    const steps = allSteps(planRestore(input()));
    const colStep = (id: string) => steps.find((s) => s.op === 'createColumn' && s.oldId === id) as Extract<Step, { op: 'createColumn' }>;
    expect(resolveRefs(colStep('k-rel').body, newIds).settings).toEqual({ targetModule: 'new-m1', displayField: 'new-k-name' });
    expect(resolveRefs(colStep('k-ref').body, newIds).settings).toEqual({ via: 'new-k-rel', field: 'new-k-status', aggregate: 'list' });
    expect(resolveRefs(colStep('k-live').body, newIds).settings).toEqual({ targetModule: 'm-live' });
    const cellStep = (id: string) => steps.find((s) => s.op === 'createCell' && s.oldId === id) as Extract<Step, { op: 'createCell' }>;
    expect(resolveCell(cellStep('v1').value, newIds)).toBe('["new-r2"]');
    expect(resolveCell(cellStep('v3').value, newIds)).toBe('["x-live-record"]');
    expect(resolveCell(cellStep('v4').value, newIds)).toBe('["u1"]'); // person cells name users, not objects
    const auto = steps.find((s) => s.op === 'createAutomation') as Extract<Step, { op: 'createAutomation' }>;
    const body = resolveRefs(auto.body, newIds);
    expect(body.trigger).toEqual({ type: 'column_changed_to', column: 'new-k-status', value: 'Done' });
    expect(body.actions[0]).toEqual({ type: 'move_to_collection', collectionName: 'new-c2' });
    expect(body.isActive).toBe(false);
  });

  it('should report ids of other deleted modules, grants of non-members, and map modules restored earlier', () => {
    const plan = planRestore(input());
    const reasons = plan.notRestored.map((n) => `${n.entity}:${n.id}`);
    expect(reasons).toEqual(expect.arrayContaining(['column:k-other', 'automation:au1', 'grant:u-gone']));
    expect(plan.notRestored.find((n) => n.id === 'k-other')!.reason).toContain('Customers');
    const again = planRestore({ ...input(), restoredIds: new Map([['m-dead', 'm-dead-copy'], ['m1', 'never']]), liveModuleIds: new Set(['m-live', 'm-dead-copy']) });
    const other = allSteps(again).find((s) => s.op === 'createColumn' && s.oldId === 'k-other') as Extract<Step, { op: 'createColumn' }>;
    expect(resolveRefs(other.body, newIds).settings).toEqual({ targetModule: 'm-dead-copy' });
    const self = allSteps(again).find((s) => s.op === 'createColumn' && s.oldId === 'k-rel') as Extract<Step, { op: 'createColumn' }>;
    expect(resolveRefs(self.body, newIds).settings).toMatchObject({ targetModule: 'new-m1' });
    expect(again.notRestored.map((n) => n.id)).not.toContain('k-other');
  });

  it('should keep threads in order, parents before replies, rebuild tombstones after their replies, attribute authors', () => {
    const steps = allSteps(planRestore(input())).filter((s) => s.chain === 'r1');
    expect(steps.map((s) => `${s.op}:${'oldId' in s ? s.oldId : s.key}`)).toEqual([
      'createAmendment:a1',
      'createAmendment:a2',
      'createAmendment:a3',
      'deleteAmendment:tombstone:a1',
    ]);
    const [tomb, reply, edited] = steps as Extract<Step, { op: 'createAmendment' }>[];
    expect(tomb.message).toBe('by a deleted note at 2026-01-01T00:00:00.000Z');
    expect(reply).toMatchObject({ parent: 'a1', message: 'a reply\n\nby Ada Lovelace at 2026-01-02T00:00:00.000Z' });
    expect(edited.editTo).toBe('edited text\n\nby Ada Lovelace at 2026-01-03T00:00:00.000Z');
    expect(edited.message).not.toBe(edited.editTo);
  });

  it('should fix positions and completion after creating, and archive last', () => {
    const steps = allSteps(planRestore(input()));
    expect(steps.find((s) => s.op === 'createRecord' && s.oldId === 'r1')).toMatchObject({ then: { position: 0, isCompleted: true } });
    expect(steps.filter((s) => s.op === 'archiveRecord').map((s) => s.op === 'archiveRecord' && s.target)).toEqual(['r2']);
  });
});

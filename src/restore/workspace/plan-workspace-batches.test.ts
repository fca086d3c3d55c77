import { describe, expect, it } from 'vitest';
import type { Automation, Member, Workspace } from '../../domain/entities.js';
import { amendment, automation, cell, col, coll, mod, rec } from '../fixtures.test-helpers.js';
import { planWorkspaceInBatches, STRUCTURE_PHASES } from './plan-workspace-batches.js';
import { planWorkspace } from './plan-workspace.js';
import type { Step } from '../engine/plan-steps.js';
import type { ModuleTree } from '../engine/tree.js';

const ws: Workspace = { id: 'w', name: 'Ops', slug: null, description: 'runbooks', icon: null, banner: null, createdAt: null, updatedAt: null, raw: {} } as Workspace;
const member = (userId: string, role: string): Member => ({ workspaceId: 'w', userId, membershipId: null, role, status: 'active', firstName: userId, lastName: null, email: null, joinedAt: null, raw: {} }) as Member;

function tree(id: string, over: Partial<ModuleTree> = {}): ModuleTree {
  return { module: mod(id), collections: [{ ...coll(`${id}-c`, 'Todo', 0), moduleId: id }], columns: [], records: [], cells: [], amendments: [], automations: [], grants: ['u2'], ...over } as ModuleTree;
}

// A names B (a relation column and a cell naming B's record); C and D stand alone; D's recipe acts on E.
const trees: ModuleTree[] = [
  tree('A', {
    columns: [col('A-rel', 'Client', { type: 'relation', settings: { targetModule: 'B' }, moduleId: 'A' }), col('A-t', 'Notes', { moduleId: 'A', position: 1 })],
    records: [rec('A-r', 'Deal', { moduleId: 'A', collectionId: 'A-c' }), rec('A-s', 'Sub', { moduleId: 'A', collectionId: 'A-c', parentRecordId: 'A-r' })],
    cells: [cell('A-v', 'A-r', 'A-rel', '["B-r"]'), cell('A-w', 'A-r', 'A-t', 'hello u1')],
    amendments: [amendment('A-n', 'A-r', 'first', { moduleId: 'A' })],
  }),
  tree('C', { columns: [col('C-t', 'Notes', { moduleId: 'C' })], records: [rec('C-r', 'Alone', { moduleId: 'C', collectionId: 'C-c', isArchived: true })], cells: [cell('C-v', 'C-r', 'C-t', 'x')] }),
  tree('B', { records: [rec('B-r', 'Acme', { moduleId: 'B', collectionId: 'B-c' })], automations: [automation('B-a', 'Notify', { moduleId: 'B' })] }),
  tree('D', { records: [rec('D-r', 'One', { moduleId: 'D', collectionId: 'D-c' })], automations: [automation('D-a', 'Copy', { moduleId: 'D', actions: [{ type: 'create_record', targetModule: 'E' }] })] }),
  tree('E', { records: [rec('E-r', 'Two', { moduleId: 'E', collectionId: 'E-c' })] }),
];
const wsRecipes: Automation[] = [automation('W-a', 'Everywhere', { moduleId: null, scope: 'workspace', actions: [{ type: 'create_record', targetModule: 'C' }] } as Partial<Automation>)];

const input = {
  workspace: ws,
  members: [member('u1', 'owner'), member('u2', 'member')],
  workspaceAutomations: wsRecipes,
  target: { create: 'Ops' } as const,
  userMap: new Map([['u1', 'n1']]),
  presentUsers: new Set<string>(),
  liveModuleIds: new Set<string>(),
  attribution: 'by {author}',
};

const byKey = (steps: Step[]): Map<string, Step> => new Map(steps.map((s) => [s.key, s]));

describe('planWorkspaceInBatches', () => {
  it('makes the same steps, figures and refusals as the whole plan, with a few modules read at a time', () => {
    const whole = planWorkspace({ ...input, modules: trees });
    const loads: string[] = [];
    const batched = planWorkspaceInBatches({
      ...input,
      moduleIds: [...trees.map((t) => t.module.id), 'gone'],
      loadTree: (id) => {
        loads.push(id);
        return trees.find((t) => t.module.id === id) ?? null;
      },
      batchRecords: 1,
    });
    const all = [...batched.head.phases, ...batched.batches.flatMap((b) => batched.phasesOf(b)), ...batched.tail].flatMap((p) => p.steps);
    const expected = whole.phases.flatMap((p) => p.steps);
    expect(all.length).toBe(expected.length);
    expect(batched.steps).toBe(expected.length);
    expect(byKey(all)).toEqual(byKey(expected));
    expect(JSON.stringify(batched.head.counts)).toBe(JSON.stringify(whole.counts));
    expect(batched.head.notRestored).toEqual(whole.notRestored);
    expect(batched.head.modules).toEqual(whole.modules);
    expect(batched.head.members).toEqual(whole.members);
    expect(batched.head.automations).toEqual(whole.automations);
    expect(batched.whole()).toEqual(whole);
    // modules naming each other share a batch; the others go alone (one record per batch asked)
    expect(batched.batches.map((b) => b.moduleIds)).toEqual([['A', 'B'], ['C'], ['D', 'E']]);
    // structure first, every module's; content only in the batches; the workspace's recipes last
    expect(batched.head.phases.map((p) => p.name)).toEqual(['workspace', 'members', 'module', 'module settings', 'collections', 'columns']);
    for (const b of batched.batches) for (const p of batched.phasesOf(b)) expect(STRUCTURE_PHASES.has(p.name)).toBe(false);
    expect(batched.tail.map((p) => p.name)).toEqual(['workspace automations']);
    // a batch keeps each module's own order: records before cells before notes; recipes last
    const first = batched.phasesOf(batched.batches[0]!).map((p) => p.name);
    expect(first.indexOf('records')).toBeLessThan(first.indexOf('cells'));
    expect(first.at(-1)).toBe('automations');
    // a tree at a time: never the workspace's trees all at once outside whole()
    expect(loads.filter((id) => id === 'A').length).toBeGreaterThanOrEqual(2);
  });

  it('a large batch size puts every module in one batch', () => {
    const batched = planWorkspaceInBatches({ ...input, moduleIds: trees.map((t) => t.module.id), loadTree: (id) => trees.find((t) => t.module.id === id) ?? null });
    expect(batched.batches.map((b) => b.moduleIds)).toEqual([['A', 'C', 'B', 'D', 'E']]);
  });
});

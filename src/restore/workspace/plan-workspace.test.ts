import { describe, expect, it } from 'vitest';
import type { Member, Workspace } from '../../domain/entities.js';
import { cell, col, coll, mod, rec } from '../fixtures.test-helpers.js';
import { mapUsers, planWorkspace } from './plan-workspace.js';
import type { ModuleTree } from '../engine/tree.js';

const ws: Workspace = { id: 'w', name: 'Ops', slug: null, description: 'runbooks', icon: null, banner: null, createdAt: null, updatedAt: null, raw: {} } as Workspace;
const member = (userId: string, role: string): Member => ({ workspaceId: 'w', userId, membershipId: null, role, status: 'active', firstName: userId, lastName: null, email: null, joinedAt: null, raw: {} }) as Member;

function tree(id: string, over: Partial<ModuleTree> = {}): ModuleTree {
  return { module: mod(id), collections: [{ ...coll(`${id}-c`, 'Todo', 0), moduleId: id }], columns: [], records: [], cells: [], amendments: [], automations: [], grants: null, ...over } as ModuleTree;
}

describe('planWorkspace', () => {
  it('workspace, members, then every module phase by phase: all modules before any column, all records before any cell', () => {
    const a = tree('A', { columns: [col('A-rel', 'Client', { type: 'relation', settings: { targetModule: 'B' }, moduleId: 'A' })], records: [rec('A-r', 'Deal', { moduleId: 'A', collectionId: 'A-c' })], cells: [cell('A-v', 'A-r', 'A-rel', '["B-r"]')] });
    const b = tree('B', { records: [rec('B-r', 'Acme', { moduleId: 'B', collectionId: 'B-c' })] });
    const p = planWorkspace({ workspace: ws, members: [member('u1', 'owner'), member('u2', 'member')], modules: [a, b], workspaceAutomations: [], target: { create: 'Ops' }, userMap: new Map(), presentUsers: new Set(), liveModuleIds: new Set(), attribution: '' });
    const names = p.phases.map((x) => x.name);
    expect(names.slice(0, 3)).toEqual(['workspace', 'members', 'module']);
    expect(names.indexOf('module')).toBeLessThan(names.indexOf('collections'));
    expect(names.indexOf('collections')).toBeLessThan(names.indexOf('columns'));
    expect(names.indexOf('records')).toBeLessThan(names.indexOf('cells'));
    expect(p.phases.find((x) => x.name === 'module')!.steps.map((s) => s.op)).toEqual(['createModule', 'createModule']);
    // the relation to the other restored module is remapped, not left pointing at the dead one
    const column = p.phases.flatMap((x) => x.steps).find((s) => s.op === 'createColumn')!;
    expect(column.op === 'createColumn' && column.body.refs).toEqual(['B']);
    const value = p.phases.flatMap((x) => x.steps).find((s) => s.op === 'createCell')!;
    expect(value.op === 'createCell' && value.value.refs).toEqual(['B-r']);
    expect(p.modules.map((m) => m.sourceModuleId)).toEqual(['A', 'B']);
    expect(p.members).toEqual({ toAdd: 2, present: 0 });
  });

  it('into an existing workspace: no workspace step, members already there not added', () => {
    const p = planWorkspace({ workspace: ws, members: [member('u1', 'owner'), member('u2', 'member')], modules: [tree('A')], workspaceAutomations: [], target: { into: 'W9' }, userMap: new Map(), presentUsers: new Set(['u1']), liveModuleIds: new Set(), attribution: '' });
    expect(p.phases[0]!.name).toBe('members');
    expect(p.phases[0]!.steps).toEqual([expect.objectContaining({ op: 'addMember', userId: 'u2', workspaceId: 'W9' })]);
  });

  it('maps users everywhere a value names them, person cells (JSON text) included', () => {
    const map = new Map([['u1', 'n1']]);
    expect(mapUsers({ grants: ['u1', 'u2'], value: '["u1","u3"]', plain: 'u1', text: 'hello u1' }, map)).toEqual({ grants: ['n1', 'u2'], value: '["n1","u3"]', plain: 'n1', text: 'hello u1' });
    const creation = new Map([['x', 'y']]);
    expect(mapUsers({ creationTimes: creation }, map).creationTimes).toBe(creation);
  });
});

import { describe, expect, it } from 'vitest';
import { remappable } from '../remap.js';
import { fakeContext } from './fake-context.test-helpers.js';
import { workspaceAppliers as W } from './workspace.js';

describe('workspace appliers', () => {
  it('a workspace is created with its name and icon, then given description and banner; found again by name', async () => {
    const { calls, ctx } = fakeContext({ createWorkspace: () => ({ id: 'W', name: 'Ops', description: '' }), listWorkspaces: () => [{ id: 'X', name: 'Other' }, { id: 'W2', name: 'Ops' }] }, { w: 'W' });
    const step = { op: 'createWorkspace', kind: 'workspace', key: 'workspace:w', oldId: 'w', name: 'Ops', icon: '🛠', then: { description: 'runbooks', banner: 'b.png' } } as const;
    const made = await W.createWorkspace.create!(step, ctx);
    await W.createWorkspace.finish!(step, made, ctx);
    expect(calls).toEqual([['createWorkspace', { name: 'Ops', icon: '🛠' }], ['updateWorkspace', 'W', { description: 'runbooks', banner: 'b.png' }]]);
    expect(await W.createWorkspace.lookUp!(step, ctx)).toBe('W2');
  });

  it('a member is added with their role; an owner as admin, then promoted; one already there is left as is', async () => {
    const step = (role: string) => ({ op: 'addMember', key: `member:u`, workspaceId: 'w', userId: 'u', role, label: 'Ada' }) as const;
    const fresh = fakeContext({ listMembers: () => [{ userId: 'me', role: 'owner' }] }, { w: 'W' });
    await W.addMember.finish!(step('member'), null, fresh.ctx);
    expect(fresh.calls).toEqual([['listMembers', 'W'], ['addMember', 'W', { userId: 'u', role: 'member' }]]);
    const owner = fakeContext({ listMembers: () => [] }, { w: 'W' });
    await W.addMember.finish!(step('owner'), null, owner.ctx);
    expect(owner.calls.slice(1)).toEqual([['addMember', 'W', { userId: 'u', role: 'admin' }], ['setMemberRole', 'W', 'u', 'owner']]);
    // a resumed run, or the restoring user: nothing sent
    const there = fakeContext({ listMembers: () => [{ userId: 'u', role: 'guest' }] }, {});
    await W.addMember.finish!(step('guest'), null, there.ctx);
    expect(there.calls).toEqual([['listMembers', 'w']]);
  });

  it('a workspace automation is created in the (new) workspace, module ids in it remapped', async () => {
    const { calls, ctx } = fakeContext({}, { w: 'W', m: 'M' });
    const body = { name: 'Done', trigger: { type: 'column_changed_to', columnName: 'Status', value: 'Done' }, conditions: [], match: 'all', actions: [{ type: 'create_record', targetModule: 'm' }], isActive: true };
    await W.createWorkspaceAutomation.create!({ op: 'createWorkspaceAutomation', kind: 'automation', key: 'k', oldId: 'a', workspaceId: 'w', body: remappable(body, new Set(['m'])) }, ctx);
    expect(calls[0]).toEqual(['createWorkspaceAutomation', 'W', { ...body, actions: [{ type: 'create_record', targetModule: 'M' }] }]);
  });
});

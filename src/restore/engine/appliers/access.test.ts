import { describe, expect, it } from 'vitest';
import { remappable } from '../remap.js';
import { accessAppliers as A } from './access.js';
import { fakeContext } from './fake-context.test-helpers.js';

describe('access appliers', () => {
  it('a grant adds the new module to the member set (the PUT replaces the whole set), once', async () => {
    const { calls, ctx } = fakeContext({ getModuleAccess: () => [{ moduleId: 'X', granted: true }, { moduleId: 'Y', granted: false }] }, { m: 'M' });
    const step = { op: 'grantAccess', key: 'grant:u', workspaceId: 'ws', userId: 'u', module: 'm' } as const;
    await A.grantAccess.finish!(step, null, ctx);
    expect(calls).toEqual([['getModuleAccess', 'ws', 'u'], ['putModuleAccess', 'ws', 'u', ['X', 'M']]]);
    const again = fakeContext({ getModuleAccess: () => [{ moduleId: 'M', granted: true }] }, { m: 'M' });
    await A.grantAccess.finish!(step, null, again.ctx);
    expect(again.calls.map((c) => c[0])).toEqual(['getModuleAccess']);
  });

  it('an automation is created on the new module with its ids remapped, and looked up by name', async () => {
    const { calls, ctx } = fakeContext({ listModuleAutomations: () => [{ id: 'A1', name: 'Other' }, { id: 'A2', name: 'Mover' }] }, { m: 'M', c: 'C' });
    const body = { name: 'Mover', trigger: { type: 'record_created' }, conditions: [], match: 'all', actions: [{ type: 'move_to_collection', collectionName: 'c' }], isActive: true };
    const step = { op: 'createAutomation', kind: 'automation', key: 'automation:a', oldId: 'a', module: 'm', body: remappable(body, new Set(['c'])) } as const;
    await A.createAutomation.create!(step, ctx);
    expect(calls[0]).toEqual(['createModuleAutomation', 'M', { ...body, actions: [{ type: 'move_to_collection', collectionName: 'C' }] }]);
    expect(await A.createAutomation.lookUp!(step, ctx)).toBe('A2');
  });
});

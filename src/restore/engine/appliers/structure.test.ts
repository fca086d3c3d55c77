import { describe, expect, it } from 'vitest';
import { remappable } from '../remap.js';
import { fakeContext } from './fake-context.test-helpers.js';
import { structureAppliers as A } from './structure.js';

describe('structure appliers', () => {
  it('a collection: created in the new module, then only the fields the service did not take are PUT', async () => {
    const { calls, ctx } = fakeContext({ createCollection: () => ({ id: 'C', position: 0, isCollapsed: false }) }, { m: 'M', c: 'C' });
    const step = { op: 'createCollection', kind: 'collection', key: 'collection:c', oldId: 'c', module: 'm', body: { name: 'Todo', position: 3 }, then: { position: 3, isCollapsed: false } } as const;
    const made = await A.createCollection.create!(step, ctx);
    await A.createCollection.finish!(step, made, ctx);
    expect(calls).toEqual([
      ['createCollection', 'M', { name: 'Todo', position: 3 }],
      ['updateCollection', 'C', { position: 3 }],
    ]);
    // nothing to fix: no PUT
    calls.length = 0;
    await A.createCollection.finish!(step, { id: 'C', position: 3, isCollapsed: false }, ctx);
    expect(calls).toEqual([]);
  });

  it('a column: ids in its settings are remapped; a lookup takes the first unclaimed column of that name and scope', async () => {
    const { calls, ctx } = fakeContext(
      { listColumns: () => [{ id: 'X1', name: 'Link' }, { id: 'X2', name: 'Link' }] },
      { m: 'M', other: 'O' },
      ['X1'],
    );
    const step = { op: 'createColumn', kind: 'column', key: 'column:k', oldId: 'k', module: 'm', body: remappable({ name: 'Link', type: 'relation', scope: 'record' as const, settings: { targetModule: 'other' } }, new Set(['other'])), then: {} } as const;
    await A.createColumn.create!(step, ctx);
    expect(calls[0]).toEqual(['createColumn', 'M', { name: 'Link', type: 'relation', scope: 'record', settings: { targetModule: 'O' } }]);
    expect(await A.createColumn.lookUp!(step, ctx)).toBe('X2');
    expect(calls[1]).toEqual(['listColumns', 'M', 'record']);
  });

  it('seeded sub-record columns: only those no step of the run created are deleted', async () => {
    const { calls, ctx } = fakeContext({ listColumns: () => [{ id: 'mine' }, { id: 'seeded1' }, { id: 'seeded2' }] }, { m: 'M' }, ['mine']);
    await A.pruneSeededColumns.finish!({ op: 'pruneSeededColumns', key: 'prune:m', module: 'm' }, null, ctx);
    expect(calls.filter((c) => c[0] === 'deleteColumn')).toEqual([['deleteColumn', 'seeded1'], ['deleteColumn', 'seeded2']]);
  });

  it('module settings go to the new module', async () => {
    const { calls, ctx } = fakeContext({}, { m: 'M' });
    await A.updateModule.finish!({ op: 'updateModule', key: 'module-settings:m', module: 'm', body: { visibility: 'private' } }, null, ctx);
    expect(calls).toEqual([['updateModule', 'M', { visibility: 'private' }]]);
  });
});

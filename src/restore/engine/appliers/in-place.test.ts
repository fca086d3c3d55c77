import { describe, expect, it } from 'vitest';
import { WbsyncError } from '../../../domain/errors.js';
import { remappableCell } from '../remap.js';
import { fakeContext } from './fake-context.test-helpers.js';
import { inPlaceAppliers as A } from './in-place.js';

describe('in-place appliers', () => {
  it('a cell value goes back by PUT on the live cell, relation ids of recreated records remapped', async () => {
    const { calls, ctx } = fakeContext({}, { v: 'v', gone: 'NEW' });
    await A.setCell.finish!({ op: 'setCell', key: 'k', target: 'v', value: remappableCell('["gone"]', new Set(['gone'])), label: 'x' }, null, ctx);
    expect(calls).toEqual([['updateValue', 'v', { value: '["NEW"]' }]]);
  });

  it('a cell empty at the snapshot is deleted; already deleted is fine, a failing service is not', async () => {
    const ok = fakeContext({}, { v: 'v' });
    await A.clearCell.finish!({ op: 'clearCell', key: 'k', target: 'v', label: 'x' }, null, ok.ctx);
    expect(ok.calls).toEqual([['deleteValue', 'v']]);
    const gone = fakeContext({ deleteValue: () => Promise.reject(new WbsyncError('not_found', 'gone', { status: 404 })) }, { v: 'v' });
    await expect(A.clearCell.finish!({ op: 'clearCell', key: 'k', target: 'v', label: 'x' }, null, gone.ctx)).resolves.toBeUndefined();
    const down = fakeContext({ deleteValue: () => Promise.reject(new WbsyncError('unreachable', 'down', { status: 503 })) }, { v: 'v' });
    await expect(A.clearCell.finish!({ op: 'clearCell', key: 'k', target: 'v', label: 'x' }, null, down.ctx)).rejects.toMatchObject({ code: 'unreachable' });
  });

  it('record fields go back in one PUT, a recreated collection named by its new id', async () => {
    const { calls, ctx } = fakeContext({}, { r: 'r', c: 'C2' });
    await A.updateRecord.finish!({ op: 'updateRecord', key: 'k', target: 'r', body: { name: 'Old', isArchived: false }, collection: 'c', label: 'x' }, null, ctx);
    expect(calls).toEqual([['updateRecord', 'r', { name: 'Old', isArchived: false, collectionName: 'C2' }]]);
  });

  it('settings the service answers for but keeps (create-only there) are a refusal, not a success', async () => {
    const kept = fakeContext({ updateColumn: () => ({ id: 'k', settings: { targetModule: 'other' } }) }, { k: 'k' });
    await expect(A.updateColumn.finish!({ op: 'updateColumn', key: '1', target: 'k', body: { settings: { targetModule: 'mine' } }, label: 'x' }, null, kept.ctx)).rejects.toMatchObject({ details: { notTaken: true } });
    const taken = fakeContext({ updateColumn: () => ({ id: 'k', settings: { targetModule: 'mine' } }) }, { k: 'k' });
    await expect(A.updateColumn.finish!({ op: 'updateColumn', key: '1', target: 'k', body: { settings: { targetModule: 'mine' } }, label: 'x' }, null, taken.ctx)).resolves.toBeUndefined();
  });

  it('column, collection and amendment fields go back by PUT', async () => {
    const { calls, ctx } = fakeContext({}, { k: 'k', c: 'c', a: 'a' });
    await A.updateColumn.finish!({ op: 'updateColumn', key: '1', target: 'k', body: { name: 'Status', statusOptions: [{ label: 'Done', color: '#000000' }] }, label: 'x' }, null, ctx);
    await A.updateCollection.finish!({ op: 'updateCollection', key: '2', target: 'c', body: { name: 'Todo', isCollapsed: false }, label: 'x' }, null, ctx);
    await A.updateAmendment.finish!({ op: 'updateAmendment', key: '3', target: 'a', message: 'as it was', label: 'x' }, null, ctx);
    expect(calls).toEqual([
      ['updateColumn', 'k', { name: 'Status', statusOptions: [{ label: 'Done', color: '#000000' }] }],
      ['updateCollection', 'c', { name: 'Todo', isCollapsed: false }],
      ['updateAmendment', 'a', { message: 'as it was' }],
    ]);
  });
});

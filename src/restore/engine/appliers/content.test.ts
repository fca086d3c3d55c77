import { describe, expect, it } from 'vitest';
import { WbsyncError } from '../../../domain/errors.js';
import { remappableCell } from '../remap.js';
import { contentAppliers as A } from './content.js';
import { fakeContext } from './fake-context.test-helpers.js';

describe('content appliers', () => {
  it('a cell names the new record, column, collection and module, and relation ids inside its value', async () => {
    const { calls, ctx } = fakeContext({}, { r: 'R', k: 'K', c: 'C', m: 'M', r2: 'R2' });
    const step = { op: 'createCell', kind: 'cell', key: 'cell:v', oldId: 'v', record: 'r', column: 'k', collection: 'c', module: 'm', workspaceId: 'ws', value: remappableCell('["r2"]', new Set(['r2'])) } as const;
    await A.createCell.create!(step, ctx);
    expect(calls).toEqual([['createValue', { record: 'R', column: 'K', collectionName: 'C', module: 'M', workspace: 'ws', value: '["R2"]' }]]);
  });

  it('an edited amendment is posted, then edited to its text (the service flags it edited)', async () => {
    const { calls, ctx } = fakeContext({ createAmendment: () => ({ id: 'A', message: 'hi (restoring)' }) }, { r: 'R', a: 'A', p: 'P' });
    const step = { op: 'createAmendment', kind: 'amendment', key: 'amendment:a', oldId: 'a', record: 'r', parent: 'p', message: 'hi (restoring)', editTo: 'hi' } as const;
    const made = await A.createAmendment.create!(step, ctx);
    await A.createAmendment.finish!(step, made, ctx);
    expect(calls).toEqual([
      ['createAmendment', 'R', { message: 'hi (restoring)', parentComment: 'P' }],
      ['updateAmendment', 'A', { message: 'hi' }],
    ]);
  });

  it('a tombstone already deleted (by a run that crashed before noting it) is not an error; other failures are', async () => {
    const gone = fakeContext({ deleteAmendment: () => Promise.reject(new WbsyncError('not_found', 'gone', { status: 404 })) }, { a: 'A' });
    await expect(A.deleteAmendment.finish!({ op: 'deleteAmendment', key: 't', target: 'a' }, null, gone.ctx)).resolves.toBeUndefined();
    const down = fakeContext({ deleteAmendment: () => Promise.reject(new WbsyncError('unreachable', 'down', { status: 503 })) }, { a: 'A' });
    await expect(A.deleteAmendment.finish!({ op: 'deleteAmendment', key: 't', target: 'a' }, null, down.ctx)).rejects.toMatchObject({ code: 'unreachable' });
  });
});

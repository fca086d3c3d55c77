import { describe, expect, it } from 'vitest';
import { fakeContext } from './fake-context.test-helpers.js';
import { recordAppliers as A } from './records.js';

describe('record appliers', () => {
  const sub = { op: 'createSubRecord', kind: 'subrecord', key: 'subrecord:s', oldId: 's', parent: 'p', name: 'Step', then: { position: 2 } } as const;

  it('a sub-record left behind by its moved parent is put back in the collection it carried', async () => {
    const { calls, ctx } = fakeContext({ createSubRecord: () => ({ id: 'S', position: 0, collectionId: 'NOW' }) }, { p: 'P', s: 'S', old: 'OLD' });
    const step = { ...sub, placeIn: 'old' };
    const made = await A.createSubRecord.create!(step, ctx);
    await A.createSubRecord.finish!(step, made, ctx);
    expect(calls).toEqual([
      ['createSubRecord', 'P', { name: 'Step' }],
      ['updateRecord', 'S', { position: 2, collectionName: 'OLD' }],
    ]);
  });

  it('no placement PUT when the sub-record already sits there; a resumed step (object unknown) sends it', async () => {
    const { calls, ctx } = fakeContext({}, { s: 'S', old: 'OLD' });
    await A.createSubRecord.finish!({ ...sub, placeIn: 'old' }, { id: 'S', position: 2, collectionId: 'OLD' }, ctx);
    expect(calls).toEqual([]);
    await A.createSubRecord.finish!({ ...sub, placeIn: 'old' }, null, ctx);
    expect(calls).toEqual([['updateRecord', 'S', { position: 2, collectionName: 'OLD' }]]);
  });

  it('a record is created in its collection and looked up there by name', async () => {
    const { calls, ctx } = fakeContext({ listRecords: () => [{ id: 'R1', name: 'Row' }] }, { c: 'C' });
    const step = { op: 'createRecord', kind: 'record', key: 'record:r', oldId: 'r', collection: 'c', name: 'Row', then: {} } as const;
    await A.createRecord.create!(step, ctx);
    expect(await A.createRecord.lookUp!(step, ctx)).toBe('R1');
    expect(calls).toEqual([['createRecord', 'C', { name: 'Row' }], ['listRecords', 'C']]);
  });

  it('archival and un-archival set the flag on the mapped record', async () => {
    const { calls, ctx } = fakeContext({}, { r: 'R' });
    await A.archiveRecord.finish!({ op: 'archiveRecord', key: 'archive:r', target: 'r' }, null, ctx);
    await A.unarchiveRecord.finish!({ op: 'unarchiveRecord', key: 'unarchive:r', target: 'r' }, null, ctx);
    expect(calls).toEqual([['updateRecord', 'R', { isArchived: true }], ['updateRecord', 'R', { isArchived: false }]]);
  });
});

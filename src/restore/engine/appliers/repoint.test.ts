import { describe, expect, it } from 'vitest';
import type { Step } from '../plan-steps.js';
import { fakeContext } from './fake-context.test-helpers.js';
import { repointAppliers as A } from './repoint.js';

type RepointColumn = Extract<Step, { op: 'repointColumn' }>;
const step: RepointColumn = {
  op: 'repointColumn',
  kind: 'column',
  key: 'repoint-column:k-ref',
  oldId: 'k-ref',
  module: 'm',
  target: 'k-ref',
  settings: { value: { via: 'k-rel', field: 'f', aggregate: 'sum' }, refs: ['k-rel'] },
  body: { name: 'Customer value' },
  remake: { name: 'Customer value', type: 'reference', scope: 'record' },
  then: { position: 5, width: 200 },
  label: 'Customer value',
};

describe('re-point appliers', () => {
  it('a service that takes settings on update: the column is re-pointed in place, with the field writes, and keeps its id', async () => {
    const { calls, ctx } = fakeContext({ updateColumn: (_id: string, body: Record<string, unknown>) => ({ id: 'k-ref', ...body }) }, { 'k-rel': 'NEW-REL', m: 'm' });
    const made = await A.repointColumn.create!(step, ctx);
    expect(made.id).toBe('k-ref');
    expect(calls).toEqual([['updateColumn', 'k-ref', { name: 'Customer value', settings: { via: 'NEW-REL', field: 'f', aggregate: 'sum' } }]]);
  });

  it('a service that keeps settings create-only: the column is made anew with them, given its fields, and the old one deleted', async () => {
    const { calls, ctx } = fakeContext(
      {
        updateColumn: (id: string) => ({ id, settings: { via: 'k-rel', field: 'f', aggregate: 'sum' } }),
        createColumn: () => ({ id: 'NEW-REF', position: 0, width: 180 }),
        listColumns: () => [{ id: 'k-ref', name: 'Customer value' }, { id: 'NEW-REF', name: 'Customer value' }],
      },
      { 'k-rel': 'NEW-REL', m: 'M', 'k-ref': 'NEW-REF' },
    );
    const made = await A.repointColumn.create!(step, ctx);
    expect(made.id).toBe('NEW-REF');
    await A.repointColumn.finish!(step, made, ctx);
    expect(calls.map((c) => c.slice(0, 2))).toEqual([['updateColumn', 'k-ref'], ['createColumn', 'M'], ['updateColumn', 'NEW-REF'], ['listColumns', 'M'], ['deleteColumn', 'k-ref']]);
    expect(calls[1]![2]).toEqual({ name: 'Customer value', type: 'reference', scope: 'record', settings: { via: 'NEW-REL', field: 'f', aggregate: 'sum' } });
    expect(calls[2]![2]).toEqual({ position: 5, width: 200 });
  });

  it("another module's column: its module is live (not resolved through the journal); a relation column whose settings the service keeps is declared, never made anew", async () => {
    const foreign: RepointColumn = { ...step, foreign: true, module: 'OTHER' };
    const remade = fakeContext({ updateColumn: (id: string) => ({ id, settings: { via: 'k-rel' } }), createColumn: () => ({ id: 'NEW-REF' }) }, { 'k-rel': 'NEW-REL' });
    expect((await A.repointColumn.create!(foreign, remade.ctx)).id).toBe('NEW-REF');
    expect(remade.calls[1]!.slice(0, 2)).toEqual(['createColumn', 'OTHER']);
    const relation: RepointColumn = { ...foreign, remake: { ...step.remake, type: 'relation' }, inPlaceOnly: 'point it again by hand' };
    const kept = fakeContext({ updateColumn: (id: string) => ({ id, settings: { via: 'k-rel' } }), listColumns: () => [{ id: 'C2', name: 'Customer value', type: 'relation', settings: { via: 'NEW-REL', field: 'f', aggregate: 'sum' } }] }, { 'k-rel': 'NEW-REL' });
    await expect(A.repointColumn.create!(relation, kept.ctx)).rejects.toMatchObject({ message: 'point it again by hand', details: { notTaken: true } });
    expect(kept.calls.map((c) => c[0])).toEqual(['updateColumn']);
    // nor does a lookup claim a look-alike column as its copy
    expect(await A.repointColumn.lookUp!(relation, kept.ctx)).toBeNull();
  });

  it("the module's own relation column whose settings the service keeps: kept with its id (what needs it resolves to it), then declared; never made anew", async () => {
    const own: RepointColumn = { ...step, remake: { ...step.remake, type: 'relation' }, inPlaceOnly: 'point it again by hand' };
    const kept = fakeContext({ updateColumn: (id: string) => ({ id, settings: { via: 'k-rel' } }) }, { 'k-rel': 'NEW-REL', m: 'm', 'k-ref': 'k-ref' });
    const made = await A.repointColumn.create!(own, kept.ctx);
    expect(made.id).toBe('k-ref');
    await expect(A.repointColumn.finish!(own, made, kept.ctx)).rejects.toMatchObject({ message: 'point it again by hand', details: { notTaken: true } });
    expect(kept.calls.map((c) => c[0])).toEqual(['updateColumn']);
    // resumed after the create (nothing handed over): read back, still not taken, declared
    const resumed = fakeContext({ listColumns: () => [{ id: 'k-ref', name: 'Customer value', type: 'relation', settings: { via: 'k-rel' } }] }, { 'k-rel': 'NEW-REL', m: 'm', 'k-ref': 'k-ref' });
    await expect(A.repointColumn.finish!(own, null, resumed.ctx)).rejects.toMatchObject({ details: { notTaken: true } });
    // taken in place: nothing more
    const taken = fakeContext({ updateColumn: (id: string, body: Record<string, unknown>) => ({ id, ...body }) }, { 'k-rel': 'NEW-REL', m: 'm', 'k-ref': 'k-ref' });
    const inPlace = await A.repointColumn.create!(own, taken.ctx);
    await A.repointColumn.finish!(own, inPlace, taken.ctx);
    expect(taken.calls.map((c) => c[0])).toEqual(['updateColumn']);
  });

  it('after an unknown outcome: a copy with the settings is found first, else the column itself when re-pointed, else nothing', async () => {
    const settings = { via: 'NEW-REL', field: 'f', aggregate: 'sum' };
    const copy = fakeContext({ listColumns: () => [{ id: 'k-ref', name: 'Customer value', type: 'reference', settings: { via: 'k-rel' } }, { id: 'C2', name: 'Customer value', type: 'reference', settings }] }, { 'k-rel': 'NEW-REL', m: 'm' });
    expect(await A.repointColumn.lookUp!(step, copy.ctx)).toBe('C2');
    const inPlace = fakeContext({ listColumns: () => [{ id: 'k-ref', name: 'Customer value', type: 'reference', settings }] }, { 'k-rel': 'NEW-REL', m: 'm' });
    expect(await A.repointColumn.lookUp!(step, inPlace.ctx)).toBe('k-ref');
    const none = fakeContext({ listColumns: () => [{ id: 'k-ref', name: 'Customer value', type: 'reference', settings: { via: 'k-rel' } }] }, { 'k-rel': 'NEW-REL', m: 'm' });
    expect(await A.repointColumn.lookUp!(step, none.ctx)).toBeNull();
  });

  it('an automation is read, its old ids swapped, and written whole with its on/off state as it is now (paused stays paused)', async () => {
    const now = { id: 'au', name: 'Mover', trigger: { type: 'column_changed', column: 'k' }, conditions: [{ source: 'record', field: 'collection', op: 'is', value: 'c' }], match: 'all', actions: [{ type: 'move_to_collection', collectionName: 'c' }], isActive: false };
    const { calls, ctx } = fakeContext({ listWorkspaceAutomations: () => [now] }, { k: 'K', c: 'C' });
    await A.repointAutomation.finish!({ op: 'repointAutomation', key: 'x', target: 'au', scope: 'workspace', owner: 'ws', refs: ['k', 'c'], label: 'Mover' }, null, ctx);
    expect(calls[1]).toEqual([
      'updateAutomation',
      'au',
      { name: 'Mover', trigger: { type: 'column_changed', column: 'K' }, conditions: [{ source: 'record', field: 'collection', op: 'is', value: 'C' }], match: 'all', actions: [{ type: 'move_to_collection', collectionName: 'C' }], isActive: false },
    ]);
  });

  it('an automation deleted meanwhile is a refusal (404), not a crash', async () => {
    const { ctx } = fakeContext({ listModuleAutomations: () => [] }, {});
    await expect(A.repointAutomation.finish!({ op: 'repointAutomation', key: 'x', target: 'au', scope: 'module', owner: 'm', refs: [], label: 'Gone' }, null, ctx)).rejects.toMatchObject({ status: 404 });
  });
});

// Columns in both scopes: create every type, relation/reference settings, observed defaults,
// update (statusOptions replace the set), delete, and refusals for a missing or unknown type.

import { expect, it } from 'vitest';
import { expectJsonError, expectMessage, listed, written } from './expect-reply.js';
import { mkColumn, mkModule } from './fixtures.js';
import { contractSuite, covers, type Ctx } from './harness.js';
import { COLUMN_TYPES, ColumnSchema, type Column } from './schemas.js';

async function listColumns(ctx: Ctx, moduleId: string, scope?: 'subrecord'): Promise<Column[]> {
  const r = await ctx.owner.send('GET /columns/{moduleId}', { moduleId }, { query: { scope } });
  return listed(r, 'columns', ColumnSchema);
}

const OBSERVED_STATUS_DEFAULTS = [
  { label: 'Not Started', color: '#94A3B8' },
  { label: 'Working on it', color: '#F59E0B' },
  { label: 'Stuck', color: '#EF4444' },
  { label: 'Done', color: '#22C55E' },
];

contractSuite('columns', (ctx) => {
  it('POST /columns/{moduleId}: spec answers the Column itself, observed {message, column}', async () => {
    covers('POST /columns/{moduleId}');
    const mod = await mkModule(ctx);
    const r = await ctx.owner.send('POST /columns/{moduleId}', { moduleId: mod._id }, { body: { name: 'Amount', type: 'number' } });
    const col = written(ctx, r, 'column', ColumnSchema, { bareInSpec: true });
    expect(col).toMatchObject({ name: 'Amount', type: 'number' });
    if (ctx.observed) expect(col).toMatchObject({ width: 180, position: 0 });
  });

  it('every column type of the spec can be created', async () => {
    covers('POST /columns/{moduleId}', 'GET /columns/{moduleId}');
    const mod = await mkModule(ctx);
    const target = await mkModule(ctx);
    for (const type of COLUMN_TYPES.filter((t) => t !== 'relation' && t !== 'reference')) await mkColumn(ctx, mod._id, type);
    const relation = await mkColumn(ctx, mod._id, 'relation', { settings: { targetModule: target._id } });
    expect(relation.settings).toMatchObject({ targetModule: target._id });
    const far = await mkColumn(ctx, target._id, 'number');
    const reference = await mkColumn(ctx, mod._id, 'reference', { settings: { via: relation._id, field: far._id, aggregate: 'sum' } });
    expect(reference.settings).toMatchObject({ via: relation._id, field: far._id, aggregate: 'sum' });
    const listedTypes = (await listColumns(ctx, mod._id)).map((c) => c.type).sort();
    expect(listedTypes).toEqual([...COLUMN_TYPES].sort());
  });

  it('the two scopes are separate: ?scope=subrecord lists only sub-record columns', async () => {
    covers('POST /columns/{moduleId}', 'GET /columns/{moduleId}');
    const mod = await mkModule(ctx);
    const own = await mkColumn(ctx, mod._id, 'text');
    const sub = await mkColumn(ctx, mod._id, 'status', { scope: 'subrecord' });
    expect((await listColumns(ctx, mod._id)).map((c) => c._id)).toEqual([own._id]);
    expect((await listColumns(ctx, mod._id, 'subrecord')).map((c) => c._id)).toEqual([sub._id]);
  });

  it('a status column keeps the options it is given', async () => {
    covers('POST /columns/{moduleId}');
    const mod = await mkModule(ctx);
    const statusOptions = [{ label: 'Open', color: '#111111' }, { label: 'Closed', color: '#222222' }];
    const col = await mkColumn(ctx, mod._id, 'status', { statusOptions });
    expect(col.statusOptions).toEqual(statusOptions.map((o) => expect.objectContaining(o)));
  });

  it('a missing type: spec refuses; observed makes a text column', async () => {
    covers('POST /columns/{moduleId}');
    const mod = await mkModule(ctx);
    const r = await ctx.owner.send('POST /columns/{moduleId}', { moduleId: mod._id }, { body: { name: 'Typeless' } });
    if (ctx.spec) expectJsonError(r, '4xx');
    else expect(written(ctx, r, 'column', ColumnSchema).type).toBe('text');
  });

  it('an unknown type is refused (observed: 500, a raw enum error)', async () => {
    covers('POST /columns/{moduleId}');
    const mod = await mkModule(ctx);
    const r = await ctx.owner.send('POST /columns/{moduleId}', { moduleId: mod._id }, { body: { name: 'Odd', type: 'hologram' } });
    expectJsonError(r, ctx.spec ? '4xx' : 500);
    expect(await listColumns(ctx, mod._id)).toEqual([]);
  });

  if (ctx.observed) {
    it('observed: a status column without options gets the four default options', async () => {
      covers('POST /columns/{moduleId}');
      const mod = await mkModule(ctx);
      const col = await mkColumn(ctx, mod._id, 'status');
      expect(col.statusOptions).toEqual(OBSERVED_STATUS_DEFAULTS.map((o) => expect.objectContaining(o)));
    });
  }

  it('PUT /columns/{columnId} updates name, width, position; statusOptions replace the whole set', async () => {
    covers('PUT /columns/{columnId}');
    const mod = await mkModule(ctx);
    const col = await mkColumn(ctx, mod._id, 'status', { statusOptions: [{ label: 'A', color: '#000001' }, { label: 'B', color: '#000002' }] });
    const patch = { name: 'Stage', width: 240, position: 3, statusOptions: [{ label: 'C', color: '#000003' }] };
    const r = await ctx.owner.send('PUT /columns/{columnId}', { columnId: col._id }, { body: patch });
    const updated = written(ctx, r, 'column', ColumnSchema, { bareInSpec: true });
    expect(updated).toMatchObject({ name: 'Stage', width: 240, position: 3 });
    expect(updated.statusOptions).toEqual([expect.objectContaining({ label: 'C', color: '#000003' })]);
    const again = (await listColumns(ctx, mod._id)).find((c) => c._id === col._id);
    expect(again?.statusOptions).toHaveLength(1);
    expect(again).toMatchObject({ name: 'Stage', width: 240 });
  });

  it('DELETE /columns/{columnId} answers {message} and the column is gone', async () => {
    covers('DELETE /columns/{columnId}', 'GET /columns/{moduleId}');
    const mod = await mkModule(ctx);
    const keep = await mkColumn(ctx, mod._id, 'text');
    const drop = await mkColumn(ctx, mod._id, 'text', { scope: 'subrecord' });
    expectMessage(await ctx.owner.send('DELETE /columns/{columnId}', { columnId: drop._id }));
    expect(await listColumns(ctx, mod._id, 'subrecord')).toEqual([]);
    expect((await listColumns(ctx, mod._id)).map((c) => c._id)).toEqual([keep._id]);
  });
  if (ctx.observed) {
    it('observed: every status option carries an _id of its own (a Mongoose sub-document), new on every replacement', async () => {
      covers('POST /columns/{moduleId}', 'PUT /columns/{columnId}');
      const mod = await mkModule(ctx);
      const col = await mkColumn(ctx, mod._id, 'status', { statusOptions: [{ label: 'A', color: '#000001' }] });
      const first = (col.statusOptions ?? []) as Array<{ _id?: unknown }>;
      expect(first.map((o) => typeof o._id === 'string' && /^[0-9a-f]{24}$/.test(o._id))).toEqual([true]);
      const r = await ctx.owner.send('PUT /columns/{columnId}', { columnId: col._id }, { body: { statusOptions: [{ label: 'A', color: '#000001' }] } });
      const again = (written(ctx, r, 'column', ColumnSchema, { bareInSpec: true }).statusOptions ?? []) as Array<{ _id?: unknown }>;
      expect(again[0]?._id).not.toBe(first[0]?._id);
    });
  }
});

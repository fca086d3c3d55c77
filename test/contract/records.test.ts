// Records and sub-records: create, list (top-level, unarchived), update (rename, move, complete,
// archive/restore), delete (spec deletes and archives sub-records; observed soft-deletes), and
// the seeding of sub-record columns by the first sub-record.

import { expect, it } from 'vitest';
import { expectJsonError, expectMessage, expectObservedId, listed, written } from './expect-reply.js';
import { mkBoard, mkCollection, mkColumn, mkModule, mkSubRecord, setCell } from './fixtures.js';
import { contractSuite, covers, type Ctx } from './harness.js';
import { ColumnSchema, RecordSchema, RecordValueSchema, type BoardRecord, type Column } from './schemas.js';

async function listRecords(ctx: Ctx, collectionId: string): Promise<BoardRecord[]> {
  return listed(await ctx.owner.send('GET /records/{collectionId}', { collectionId }), 'records', RecordSchema);
}

async function listSubRecords(ctx: Ctx, recordId: string): Promise<BoardRecord[]> {
  return listed(await ctx.owner.send('GET /records/{recordId}/sub-records', { recordId }), 'records', RecordSchema);
}

async function subColumns(ctx: Ctx, moduleId: string): Promise<Column[]> {
  const r = await ctx.owner.send('GET /columns/{moduleId}', { moduleId }, { query: { scope: 'subrecord' } });
  return listed(r, 'columns', ColumnSchema);
}

async function update(ctx: Ctx, recordId: string, body: Record<string, unknown>): Promise<BoardRecord> {
  return written(ctx, await ctx.owner.send('PUT /records/{recordId}', { recordId }, { body }), 'record', RecordSchema);
}

contractSuite('records', (ctx) => {
  it('POST /records/{collectionId} creates a top-level record', async () => {
    covers('POST /records/{collectionId}');
    const mod = await mkModule(ctx);
    const col = await mkCollection(ctx, mod._id);
    const r = await ctx.owner.send('POST /records/{collectionId}', { collectionId: col._id }, { body: { name: 'Deal 1' } });
    const rec = written(ctx, r, 'record', RecordSchema);
    expectObservedId(ctx, rec._id);
    expect(rec).toMatchObject({
      name: 'Deal 1', collectionName: col._id, parentRecord: null, module: mod._id, workspace: ctx.ws,
      isCompleted: false, isArchived: false,
    });
  });

  it('POST /records/{collectionId} without a name is refused', async () => {
    covers('POST /records/{collectionId}');
    const board = await mkBoard(ctx);
    const r = await ctx.owner.send('POST /records/{collectionId}', { collectionId: board.collection._id }, { body: {} });
    expectJsonError(r, ctx.spec ? '4xx' : 500);
  });

  it('sub-records: create, list, parentRecord, subRecordCount; excluded from the collection list', async () => {
    covers('POST /records/{recordId}/sub-records', 'GET /records/{recordId}/sub-records', 'GET /records/{collectionId}');
    const board = await mkBoard(ctx);
    const r = await ctx.owner.send('POST /records/{recordId}/sub-records', { recordId: board.record._id }, { body: { name: 'Step 1' } });
    const sub = written(ctx, r, 'record', RecordSchema);
    expect(sub).toMatchObject({ name: 'Step 1', parentRecord: board.record._id, module: board.module._id });
    expect((await listSubRecords(ctx, board.record._id)).map((s) => s._id)).toEqual([sub._id]);
    const top = await listRecords(ctx, board.collection._id);
    expect(top.map((x) => x._id)).toEqual([board.record._id]);
    expect(top[0].subRecordCount).toBe(1);
    expect(top[0].amendmentCount).toBe(0);
  });

  it('a sub-record of a sub-record is refused', async () => {
    covers('POST /records/{recordId}/sub-records');
    const board = await mkBoard(ctx);
    const sub = await mkSubRecord(ctx, board.record._id);
    const r = await ctx.owner.send('POST /records/{recordId}/sub-records', { recordId: sub._id }, { body: { name: 'too deep' } });
    expectJsonError(r, ctx.observed ? 400 : '4xx');
  });

  it('the first sub-record of a module seeds the sub-record columns (observed: Owner, Status, Due date)', async () => {
    covers('POST /records/{recordId}/sub-records', 'GET /columns/{moduleId}');
    const board = await mkBoard(ctx);
    expect(await subColumns(ctx, board.module._id)).toEqual([]);
    const boardColumnsBefore = listed(await ctx.owner.send('GET /columns/{moduleId}', { moduleId: board.module._id }), 'columns', ColumnSchema);
    await mkSubRecord(ctx, board.record._id);
    const seeded = await subColumns(ctx, board.module._id);
    expect(seeded.length).toBeGreaterThan(0);
    const boardColumnsAfter = listed(await ctx.owner.send('GET /columns/{moduleId}', { moduleId: board.module._id }), 'columns', ColumnSchema);
    expect(boardColumnsAfter.map((c) => c._id)).toEqual(boardColumnsBefore.map((c) => c._id));
    if (ctx.observed) {
      expect(seeded.map((c) => [c.name, c.type])).toEqual([['Owner', 'person'], ['Status', 'status'], ['Due date', 'date']]);
      expect(seeded[1].statusOptions).toEqual([
        { label: 'Not Started', color: '#94A3B8' }, { label: 'Working on it', color: '#F59E0B' },
        { label: 'Stuck', color: '#EF4444' }, { label: 'Done', color: '#22C55E' },
      ].map((o) => expect.objectContaining(o)));
    }
    await mkSubRecord(ctx, board.record._id);
    expect((await subColumns(ctx, board.module._id)).map((c) => c._id)).toEqual(seeded.map((c) => c._id));
  });

  if (ctx.observed) {
    it('observed: no seeding when a sub-record-scope column already exists', async () => {
      covers('POST /columns/{moduleId}', 'POST /records/{recordId}/sub-records');
      const board = await mkBoard(ctx);
      const own = await mkColumn(ctx, board.module._id, 'text', { scope: 'subrecord' });
      await mkSubRecord(ctx, board.record._id);
      expect((await subColumns(ctx, board.module._id)).map((c) => c._id)).toEqual([own._id]);
    });

    it('observed: create ignores position and appends after the highest, archived rows included', async () => {
      covers('POST /records/{collectionId}', 'PUT /records/{recordId}');
      const board = await mkBoard(ctx);
      await update(ctx, board.record._id, { position: 50 });
      await update(ctx, board.record._id, { isArchived: true });
      const next = await ctx.owner.send('POST /records/{collectionId}', { collectionId: board.collection._id }, { body: { name: 'n', position: -5 } });
      expect(written(ctx, next, 'record', RecordSchema).position).toBeGreaterThan(50);
    });
  }

  it('PUT /records/{recordId}: rename, position, complete, move to another collection', async () => {
    covers('PUT /records/{recordId}', 'GET /records/{collectionId}');
    const board = await mkBoard(ctx);
    const target = await mkCollection(ctx, board.module._id);
    const id = board.record._id;
    expect((await update(ctx, id, { name: 'Renamed' })).name).toBe('Renamed');
    expect((await update(ctx, id, { position: 42 })).position).toBe(42);
    expect((await update(ctx, id, { isCompleted: true })).isCompleted).toBe(true);
    expect((await update(ctx, id, { isCompleted: false })).isCompleted).toBe(false);
    expect((await update(ctx, id, { collectionName: target._id })).collectionName).toBe(target._id);
    expect((await listRecords(ctx, board.collection._id)).map((r) => r._id)).not.toContain(id);
    expect((await listRecords(ctx, target._id)).find((r) => r._id === id)).toMatchObject({ name: 'Renamed', position: 42 });
  });

  it('PUT /records/{recordId} archives (hidden from the list) and restores', async () => {
    covers('PUT /records/{recordId}', 'GET /records/{collectionId}');
    const board = await mkBoard(ctx);
    expect((await update(ctx, board.record._id, { isArchived: true })).isArchived).toBe(true);
    expect(await listRecords(ctx, board.collection._id)).toEqual([]);
    expect((await update(ctx, board.record._id, { isArchived: false })).isArchived).toBe(false);
    expect((await listRecords(ctx, board.collection._id)).map((r) => r._id)).toEqual([board.record._id]);
  });

  it('PUT and DELETE /records/{recordId} serve sub-records too', async () => {
    covers('PUT /records/{recordId}', 'DELETE /records/{recordId}', 'GET /records/{recordId}/sub-records');
    const board = await mkBoard(ctx);
    const sub = await mkSubRecord(ctx, board.record._id);
    expect((await update(ctx, sub._id, { name: 'Sub renamed', isCompleted: true })).name).toBe('Sub renamed');
    const gone = expectMessage(await ctx.owner.send('DELETE /records/{recordId}', { recordId: sub._id }));
    expect(gone.archivedSubRecords).toBe(0);
    expect(await listSubRecords(ctx, board.record._id)).toEqual([]);
  });

  it('DELETE /records/{recordId} answers archivedSubRecords; spec deletes, observed soft-deletes and can restore', async () => {
    covers('DELETE /records/{recordId}');
    const board = await mkBoard(ctx);
    const column = await mkColumn(ctx, board.module._id, 'text');
    await setCell(ctx, board.record, column._id, 'kept');
    await mkSubRecord(ctx, board.record._id);
    await mkSubRecord(ctx, board.record._id);
    const id = board.record._id;
    const body = expectMessage(await ctx.owner.send('DELETE /records/{recordId}', { recordId: id }));
    expect(body.archivedSubRecords).toBe(2);
    expect(await listRecords(ctx, board.collection._id)).toEqual([]);
    const again = await ctx.owner.send('DELETE /records/{recordId}', { recordId: id });
    if (ctx.spec) {
      covers('GET /records/{recordId}/sub-records');
      expectJsonError(again, 404);
      expectJsonError(await ctx.owner.send('GET /records/{recordId}/sub-records', { recordId: id }), 404);
    } else {
      covers('PUT /records/{recordId}', 'GET /record-values/{recordId}');
      expect(expectMessage(again)).toHaveProperty('archivedSubRecords');
      const restored = await update(ctx, id, { isArchived: false });
      expect(restored.isArchived).toBe(false);
      expect((await listRecords(ctx, board.collection._id)).map((r) => r._id)).toEqual([id]);
      const values = listed(await ctx.owner.send('GET /record-values/{recordId}', { recordId: id }), 'values', RecordValueSchema);
      expect(values.map((v) => v.value)).toEqual(['kept']);
    }
  });
});

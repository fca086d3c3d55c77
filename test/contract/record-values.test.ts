// Record values (cells): create, list with populated column, update, delete, the encoding table,
// observed upsert and validation quirks, cells of deleted columns, and the references view.

import { expect, it } from 'vitest';
import { expectJsonError, expectMessage, expectOk, got, listed, written } from './expect-reply.js';
import { mkBoard, mkCollection, mkColumn, mkModule, mkRecord, setCell } from './fixtures.js';
import { contractSuite, covers, type Ctx } from './harness.js';
import {
  ColumnSchema,
  ModuleSchema,
  RecordSchema,
  RecordValueSchema,
  ReferencesSchema,
  type BoardRecord,
  type RecordValue,
} from './schemas.js';

async function values(ctx: Ctx, recordId: string): Promise<RecordValue[]> {
  return listed(await ctx.owner.send('GET /record-values/{recordId}', { recordId }), 'values', RecordValueSchema);
}

function columnId(v: RecordValue): string | null {
  return v.column === null ? null : typeof v.column === 'string' ? v.column : v.column._id;
}

function cellBody(rec: BoardRecord, column: string, value: string): Record<string, string> {
  return { record: rec._id, column, collectionName: rec.collectionName, module: rec.module, workspace: rec.workspace, value };
}

contractSuite('record values', (ctx) => {
  it('POST /record-values: spec answers the Record value itself, observed {message, recordValue}', async () => {
    covers('POST /record-values');
    const board = await mkBoard(ctx);
    const col = await mkColumn(ctx, board.module._id, 'text');
    const r = await ctx.owner.send('POST /record-values', {}, { body: cellBody(board.record, col._id, 'hello') });
    const v = written(ctx, r, 'recordValue', RecordValueSchema, { bareInSpec: true });
    expect(v.record).toBe(board.record._id);
    expect(columnId(v)).toBe(col._id);
    expect(v.value).toBe('hello');
  });

  it('GET /record-values/{recordId} lists values with their column populated', async () => {
    covers('GET /record-values/{recordId}');
    const board = await mkBoard(ctx);
    const col = await mkColumn(ctx, board.module._id, 'text');
    await setCell(ctx, board.record, col._id, 'x');
    const list = await values(ctx, board.record._id);
    expect(list).toHaveLength(1);
    const populated = ColumnSchema.parse(list[0].column);
    expect(populated).toMatchObject({ _id: col._id, type: 'text', name: col.name });
    expect(list[0].value).toBe('x');
  });

  it('values round-trip in the encoding of their column type', async () => {
    covers('POST /record-values', 'GET /record-values/{recordId}');
    const board = await mkBoard(ctx);
    const cases: Array<[Parameters<typeof mkColumn>[2], string]> = [
      ['status', 'Done'],
      ['checkbox', 'true'],
      ['person', JSON.stringify([ctx.owner.id])],
      ['rating', '3.5'],
      ['timeline', JSON.stringify({ startDate: '2026-01-01', endDate: '2026-01-31' })],
      ['date', '2026-02-01'],
      ['text', 'plain'],
      ['link', 'https://example.com'],
    ];
    const expected: Record<string, string> = {};
    for (const [type, value] of cases) {
      const col = await mkColumn(ctx, board.module._id, type);
      await setCell(ctx, board.record, col._id, value);
      expected[col._id] = value;
    }
    const stored = Object.fromEntries((await values(ctx, board.record._id)).map((v) => [columnId(v), v.value]));
    expect(stored).toEqual(expected);
  });

  it('PUT /record-values/{recordValueId} replaces the value', async () => {
    covers('PUT /record-values/{recordValueId}');
    const board = await mkBoard(ctx);
    const col = await mkColumn(ctx, board.module._id, 'text');
    const v = await setCell(ctx, board.record, col._id, 'one');
    const r = await ctx.owner.send('PUT /record-values/{recordValueId}', { recordValueId: v._id }, { body: { value: 'two' } });
    const updated = written(ctx, r, 'recordValue', RecordValueSchema, { bareInSpec: true });
    expect(updated._id).toBe(v._id);
    expect(updated.value).toBe('two');
    expect((await values(ctx, board.record._id)).map((x) => x.value)).toEqual(['two']);
  });

  it('DELETE /record-values/{recordValueId} empties the cell', async () => {
    covers('DELETE /record-values/{recordValueId}');
    const board = await mkBoard(ctx);
    const col = await mkColumn(ctx, board.module._id, 'text');
    const v = await setCell(ctx, board.record, col._id, 'bye');
    expectMessage(await ctx.owner.send('DELETE /record-values/{recordValueId}', { recordValueId: v._id }));
    expect(await values(ctx, board.record._id)).toEqual([]);
    const again = await ctx.owner.send('DELETE /record-values/{recordValueId}', { recordValueId: v._id });
    expectJsonError(again, ctx.spec ? 404 : 400, ctx.observed ? 'Invalid board id' : undefined);
  });

  it('DELETE /columns/{columnId}: spec deletes its values; observed keeps them with column null', async () => {
    covers('DELETE /columns/{columnId}', 'GET /record-values/{recordId}');
    const board = await mkBoard(ctx);
    const col = await mkColumn(ctx, board.module._id, 'text');
    await setCell(ctx, board.record, col._id, 'orphan');
    expectMessage(await ctx.owner.send('DELETE /columns/{columnId}', { columnId: col._id }));
    const left = await values(ctx, board.record._id);
    if (ctx.spec) expect(left).toEqual([]);
    else expect(left.map((v) => [v.column, v.value])).toEqual([[null, 'orphan']]);
  });

  if (ctx.observed) {
    it('observed: POST for a pair that has a value updates it ("Value updated")', async () => {
      covers('POST /record-values');
      const board = await mkBoard(ctx);
      const col = await mkColumn(ctx, board.module._id, 'text');
      const first = await setCell(ctx, board.record, col._id, 'a');
      const r = await ctx.owner.send('POST /record-values', {}, { body: cellBody(board.record, col._id, 'b') });
      expect(r.status).toBe(200);
      expect(expectOk(r).message).toBe('Value updated');
      expect((await values(ctx, board.record._id)).map((v) => [v._id, v.value])).toEqual([[first._id, 'b']]);
    });

    it('observed: number, email and phone cells are validated (400)', async () => {
      covers('POST /record-values');
      const board = await mkBoard(ctx);
      for (const [type, bad] of [['number', 'abc'], ['email', 'not an email'], ['phone', 'call me maybe']] as const) {
        const col = await mkColumn(ctx, board.module._id, type);
        expectJsonError(await ctx.owner.send('POST /record-values', {}, { body: cellBody(board.record, col._id, bad) }), 400);
      }
    });

    it('observed: a cell write moves the module\'s updatedAt but not the record\'s', async () => {
      covers('POST /record-values', 'GET /records/{collectionId}', 'GET /modules/{workspaceId}');
      const board = await mkBoard(ctx);
      const col = await mkColumn(ctx, board.module._id, 'text');
      const readRecord = async (): Promise<BoardRecord | undefined> =>
        listed(await ctx.owner.send('GET /records/{collectionId}', { collectionId: board.collection._id }), 'records', RecordSchema)[0];
      const readModule = async () =>
        listed(await ctx.owner.send('GET /modules/{workspaceId}', { workspaceId: ctx.ws }), 'modules', ModuleSchema).find((m) => m._id === board.module._id);
      const recBefore = await readRecord();
      const modBefore = await readModule();
      if (ctx.isEmulator) ctx.em.clock.advance(5_000);
      else await new Promise((r) => setTimeout(r, 20));
      await setCell(ctx, board.record, col._id, 'touch');
      expect((await readRecord())?.updatedAt).toBe(recBefore?.updatedAt);
      expect(Date.parse(String((await readModule())?.updatedAt))).toBeGreaterThan(Date.parse(String(modBefore?.updatedAt)));
    });
  }

  it('GET /record-values/references/{moduleId} resolves relation/reference columns for every record', async () => {
    covers('GET /record-values/references/{moduleId}', 'POST /columns/{moduleId}');
    // The far side: a module with a text column "Title".
    const farMod = await mkModule(ctx);
    const farCol = await mkCollection(ctx, farMod._id);
    const far = await mkRecord(ctx, farCol._id, 'Far record');
    const title = await mkColumn(ctx, farMod._id, 'text');
    await setCell(ctx, far, title._id, 'Far title');
    // The near side: a relation to the far module and a reference through it to "Title".
    const near = await mkBoard(ctx);
    const relation = await mkColumn(ctx, near.module._id, 'relation', { settings: { targetModule: farMod._id, displayField: title._id } });
    const reference = await mkColumn(ctx, near.module._id, 'reference', { settings: { via: relation._id, field: title._id, aggregate: 'list' } });
    expect(relation.settings).toMatchObject({ targetModule: farMod._id });
    expect(reference.settings).toMatchObject({ via: relation._id, field: title._id, aggregate: 'list' });
    await setCell(ctx, near.record, relation._id, JSON.stringify([far._id]));
    const refs = got(await ctx.owner.send('GET /record-values/references/{moduleId}', { moduleId: near.module._id }), 'references', ReferencesSchema);
    const cell = refs[near.record._id]?.[reference._id];
    expect(cell, JSON.stringify(refs)).toBeDefined();
    expect(cell?.items).toEqual([expect.objectContaining({ recordId: far._id, name: 'Far record', value: 'Far title' })]);
    expect(cell).toHaveProperty('display');
  });
});


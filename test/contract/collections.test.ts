// Collections: bare (spec) vs wrapped (observed) answers, append vs position 0, module order,
// update, delete (spec deletes the records in it; observed does not cascade), observed paging.

import { expect, it } from 'vitest';
import { describeReply } from './client.js';
import { expectJsonError, expectMessage, expectOk, listed, written } from './expect-reply.js';
import { mkBoard, mkCollection, mkModule } from './fixtures.js';
import { contractSuite, covers, type Ctx } from './harness.js';
import { CollectionSchema, type Collection } from './schemas.js';

async function listCollections(ctx: Ctx, moduleId: string): Promise<Collection[]> {
  return listed(await ctx.owner.send('GET /collections/{moduleId}', { moduleId }), 'collections', CollectionSchema);
}

contractSuite('collections', (ctx) => {
  it('POST /collections/{moduleId}: spec answers the Collection itself, observed {message, collection}', async () => {
    covers('POST /collections/{moduleId}');
    const mod = await mkModule(ctx);
    const r = await ctx.owner.send('POST /collections/{moduleId}', { moduleId: mod._id }, { body: { name: 'Leads', color: '#AA0000' } });
    const col = written(ctx, r, 'collection', CollectionSchema, { bareInSpec: true });
    expect(col).toMatchObject({ name: 'Leads', color: '#AA0000' });
  });

  it('without a position: spec appends, observed puts it at 0', async () => {
    covers('POST /collections/{moduleId}');
    const mod = await mkModule(ctx);
    const a = await mkCollection(ctx, mod._id);
    const b = await mkCollection(ctx, mod._id);
    if (ctx.spec) expect(b.position).toBeGreaterThan(a.position);
    else expect([a.position, b.position]).toEqual([0, 0]);
  });

  it('GET /collections/{moduleId} lists in module order', async () => {
    covers('GET /collections/{moduleId}', 'POST /collections/{moduleId}');
    const mod = await mkModule(ctx);
    const late = await mkCollection(ctx, mod._id, { position: 20 });
    const early = await mkCollection(ctx, mod._id, { position: 10 });
    expect([early.position, late.position]).toEqual([10, 20]);
    expect((await listCollections(ctx, mod._id)).map((c) => c._id)).toEqual([early._id, late._id]);
  });

  it('POST /collections/{moduleId} without a name is refused', async () => {
    covers('POST /collections/{moduleId}');
    const mod = await mkModule(ctx);
    const r = await ctx.owner.send('POST /collections/{moduleId}', { moduleId: mod._id }, { body: { color: '#000000' } });
    expectJsonError(r, ctx.spec ? '4xx' : 500);
  });

  it('PUT /collections/{collectionId} updates name, color, position and isCollapsed', async () => {
    covers('PUT /collections/{collectionId}');
    const mod = await mkModule(ctx);
    const col = await mkCollection(ctx, mod._id);
    const patch = { name: 'Won', color: '#00AA00', position: 7, isCollapsed: true };
    const r = await ctx.owner.send('PUT /collections/{collectionId}', { collectionId: col._id }, { body: patch });
    expect(written(ctx, r, 'collection', CollectionSchema, { bareInSpec: true })).toMatchObject(patch);
    expect((await listCollections(ctx, mod._id)).find((c) => c._id === col._id)).toMatchObject(patch);
  });

  it('DELETE /collections/{collectionId}: spec deletes its records, observed leaves them (no cascade)', async () => {
    covers('DELETE /collections/{collectionId}', 'GET /records/{collectionId}', 'GET /amendments/{recordId}');
    const board = await mkBoard(ctx);
    expectMessage(await ctx.owner.send('DELETE /collections/{collectionId}', { collectionId: board.collection._id }));
    expect((await listCollections(ctx, board.module._id)).map((c) => c._id)).not.toContain(board.collection._id);
    const records = await ctx.owner.send('GET /records/{collectionId}', { collectionId: board.collection._id });
    const orphan = await ctx.owner.send('GET /amendments/{recordId}', { recordId: board.record._id });
    if (ctx.spec) {
      expectJsonError(records, 404);
      expectJsonError(orphan, 404);
    } else {
      expectJsonError(records, 400, 'Invalid board id');
      expectOk(orphan);
    }
  });

  if (ctx.observed) {
    it('observed: lists take page/limit and then carry pagination', async () => {
      covers('GET /collections/{moduleId}');
      const mod = await mkModule(ctx);
      for (let i = 0; i < 3; i += 1) await mkCollection(ctx, mod._id, { position: i });
      const r = await ctx.owner.send('GET /collections/{moduleId}', { moduleId: mod._id }, { query: { page: 1, limit: 2 } });
      const body = expectOk(r);
      expect((body.collections as unknown[]).length, describeReply(r)).toBe(2);
      expect(body.pagination).toMatchObject({ page: 1, limit: 2, total: 3, totalPages: 2, hasMore: true, nextPage: 2 });
      const all = expectOk(await ctx.owner.send('GET /collections/{moduleId}', { moduleId: mod._id }));
      expect(all.collections as unknown[]).toHaveLength(3);
      expect(all.pagination).toBeUndefined();
    });
  }
});

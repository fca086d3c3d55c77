// Modules: create (observed defaults and tag cleaning), list with record statistics, update
// (tags replace, visibility owner/admin only), delete and what becomes of what was inside.

import { expect, it } from 'vitest';
import { describeReply } from './client.js';
import { expectJsonError, expectMessage, expectObservedId, listed, written } from './expect-reply.js';
import { addMember, mkBoard, mkCollection, mkModule, mkRecord, mkWorkspace, uniqueName } from './fixtures.js';
import { contractSuite, covers, type Ctx } from './harness.js';
import { CollectionSchema, ColumnSchema, ModuleSchema, type Module } from './schemas.js';

async function listModules(ctx: Ctx, ws: string): Promise<Module[]> {
  return listed(await ctx.owner.send('GET /modules/{workspaceId}', { workspaceId: ws }), 'modules', ModuleSchema);
}

contractSuite('modules', (ctx) => {
  it('POST /modules/{workspaceId} creates a module with name, description and tags', async () => {
    covers('POST /modules/{workspaceId}');
    const name = uniqueName('Pipeline');
    const tags = [{ label: 'sales', color: '#FF0000' }];
    const r = await ctx.owner.send('POST /modules/{workspaceId}', { workspaceId: ctx.ws }, { body: { name, description: 'deals', tags } });
    const mod = written(ctx, r, 'module', ModuleSchema);
    expectObservedId(ctx, mod._id);
    expect(mod).toMatchObject({ name, description: 'deals', tags });
    if (ctx.observed) {
      covers('GET /collections/{moduleId}', 'GET /columns/{moduleId}');
      expect(mod).toMatchObject({ icon: '📋', color: '#3B82F6', visibility: 'workspace' });
      const cols = await ctx.owner.send('GET /collections/{moduleId}', { moduleId: mod._id });
      expect(listed(cols, 'collections', CollectionSchema)).toEqual([]);
      const columns = await ctx.owner.send('GET /columns/{moduleId}', { moduleId: mod._id });
      expect(listed(columns, 'columns', ColumnSchema)).toEqual([]);
    }
  });

  if (ctx.observed) {
    it('observed: tags are trimmed, cut to 24 chars, de-duplicated, at most 12, bad colours become #94A3B8', async () => {
      covers('POST /modules/{workspaceId}');
      const tags = [
        { label: '  padded  ', color: '#FF0000' },
        { label: 'padded', color: '#FF0000' },
        { label: 'x'.repeat(40), color: 'not-a-colour' },
        ...Array.from({ length: 15 }, (_, i) => ({ label: `t${i}`, color: '#00FF00' })),
      ];
      const mod = await mkModule(ctx, ctx.ws, { tags });
      const got = mod.tags ?? [];
      expect(got.length).toBeLessThanOrEqual(12);
      expect(got[0]).toMatchObject({ label: 'padded', color: '#FF0000' });
      expect(got.filter((t) => t.label === 'padded')).toHaveLength(1);
      expect(got[1].label.length).toBeLessThanOrEqual(24);
      expect(got[1].color).toBe('#94A3B8');
    });
  }

  it('POST /modules/{workspaceId} without a name is refused (spec 4xx JSON; observed 500)', async () => {
    covers('POST /modules/{workspaceId}');
    const r = await ctx.owner.send('POST /modules/{workspaceId}', { workspaceId: ctx.ws }, { body: { description: 'nameless' } });
    expectJsonError(r, ctx.spec ? '4xx' : 500);
  });

  it('GET /modules/{workspaceId} lists modules with totalRecords, completedRecords and performance', async () => {
    covers('GET /modules/{workspaceId}', 'PUT /records/{recordId}');
    const ws = await mkWorkspace(ctx);
    const board = await mkBoard(ctx, ws);
    const second = await mkRecord(ctx, board.collection._id);
    await ctx.owner.send('PUT /records/{recordId}', { recordId: second._id }, { body: { isCompleted: true } });
    const list = await listModules(ctx, ws);
    expect(list.map((m) => m._id)).toEqual([board.module._id]);
    const [mod] = list;
    expect(mod.totalRecords).toBe(2);
    expect(mod.completedRecords).toBe(1);
    expect(typeof mod.performance).toBe('number');
  });

  it('PUT /modules/{moduleId} updates fields; tags replace the whole set and [] clears', async () => {
    covers('PUT /modules/{moduleId}');
    const mod = await mkModule(ctx, ctx.ws, { tags: [{ label: 'a', color: '#111111' }, { label: 'b', color: '#222222' }] });
    const patch = { name: uniqueName('Renamed'), description: 'changed', icon: 'star', color: '#123456', tags: [{ label: 'c', color: '#333333' }] };
    const r = await ctx.owner.send('PUT /modules/{moduleId}', { moduleId: mod._id }, { body: patch });
    expect(written(ctx, r, 'module', ModuleSchema)).toMatchObject(patch);
    const cleared = await ctx.owner.send('PUT /modules/{moduleId}', { moduleId: mod._id }, { body: { tags: [] } });
    expect(written(ctx, cleared, 'module', ModuleSchema).tags).toEqual([]);
    const listedMod = (await listModules(ctx, ctx.ws)).find((m) => m._id === mod._id);
    expect(listedMod).toMatchObject({ name: patch.name, tags: [] });
  });

  it('PUT /modules/{moduleId} sets visibility; an unknown visibility is refused', async () => {
    covers('PUT /modules/{moduleId}');
    const mod = await mkModule(ctx);
    for (const visibility of ['private', 'public', 'workspace'] as const) {
      const r = await ctx.owner.send('PUT /modules/{moduleId}', { moduleId: mod._id }, { body: { visibility } });
      expect(written(ctx, r, 'module', ModuleSchema).visibility).toBe(visibility);
    }
    const bad = await ctx.owner.send('PUT /modules/{moduleId}', { moduleId: mod._id }, { body: { visibility: 'secret' } });
    expectJsonError(bad, ctx.observed ? 400 : '4xx');
  });

  if (ctx.hasOther) {
    it('visibility changes are limited to owner or admin', async () => {
      covers('PUT /modules/{moduleId}');
      const ws = await mkWorkspace(ctx);
      await addMember(ctx, ws, ctx.other, 'member');
      const mod = await mkModule(ctx, ws);
      const r = await ctx.other.send('PUT /modules/{moduleId}', { moduleId: mod._id }, { body: { visibility: 'private' } });
      expectJsonError(r, '4xx');
      expect((await listModules(ctx, ws))[0].visibility).toBe('workspace');
    });
  }

  it('DELETE /modules/{moduleId} answers {message}; the module and everything under it become unreachable', async () => {
    covers('DELETE /modules/{moduleId}', 'GET /collections/{moduleId}', 'GET /records/{collectionId}', 'GET /modules/{workspaceId}');
    const board = await mkBoard(ctx);
    await mkCollection(ctx, board.module._id);
    expectMessage(await ctx.owner.send('DELETE /modules/{moduleId}', { moduleId: board.module._id }));
    expect((await listModules(ctx, ctx.ws)).map((m) => m._id)).not.toContain(board.module._id);
    const notFound = ctx.observed ? 'Board not found' : undefined;
    expectJsonError(await ctx.owner.send('GET /collections/{moduleId}', { moduleId: board.module._id }), 404, notFound);
    expectJsonError(await ctx.owner.send('GET /records/{collectionId}', { collectionId: board.collection._id }), 404, notFound);
    const again = await ctx.owner.send('DELETE /modules/{moduleId}', { moduleId: board.module._id });
    expect(again.status, describeReply(again)).toBe(404);
  });
});

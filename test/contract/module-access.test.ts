// Module access: per-person grants on private modules; PUT replaces the whole grant set.

import { expect, it } from 'vitest';
import { z } from 'zod';
import type { Reply } from './client.js';
import { expectJsonError, expectOk, listed } from './expect-reply.js';
import { addMember, mkBoard, mkPrivateSetup, mkWorkspace } from './fixtures.js';
import { contractSuite, covers, UNKNOWN_ID, type Ctx } from './harness.js';
import { ModuleAccessEntrySchema, parseAs } from './schemas.js';

const AccessSchema = z.looseObject({ role: z.string(), modules: z.array(ModuleAccessEntrySchema) });
const GrantSchema = z.looseObject({ message: z.string(), moduleIds: z.array(z.string()) });

async function access(ctx: Ctx, ws: string): Promise<z.infer<typeof AccessSchema>> {
  const r = await ctx.owner.send('GET /module-access/{workspaceId}/{userId}', { workspaceId: ws, userId: ctx.other.id });
  return parseAs(AccessSchema, expectOk(r), 'GET /module-access');
}

async function grant(ctx: Ctx, ws: string, moduleIds: string[]): Promise<Reply> {
  return ctx.owner.send('PUT /module-access/{workspaceId}/{userId}', { workspaceId: ws, userId: ctx.other.id }, { body: { moduleIds } });
}

contractSuite('module access', (ctx) => {
  if (!ctx.hasOther) {
    it('GET /module-access/{workspaceId}/{userId} for the owner lists every module as accessible', async () => {
      covers('GET /module-access/{workspaceId}/{userId}');
      const board = await mkBoard(ctx);
      const r = await ctx.owner.send('GET /module-access/{workspaceId}/{userId}', { workspaceId: ctx.ws, userId: ctx.owner.id });
      const body = parseAs(AccessSchema, expectOk(r), 'GET /module-access');
      expect(body.role).toBe('owner');
      expect(body.modules.find((m) => m._id === board.module._id)?.canAccess).toBe(true);
    });
    return;
  }

  it('GET /module-access/{workspaceId}/{userId} answers the role and an entry for every module', async () => {
    covers('GET /module-access/{workspaceId}/{userId}');
    const { ws, open, hidden } = await mkPrivateSetup(ctx);
    const body = await access(ctx, ws);
    expect(body.role).toBe('member');
    expect(body.modules.map((m) => m._id).sort()).toEqual([open.module._id, hidden.module._id].sort());
    expect(body.modules.find((m) => m._id === open.module._id)).toMatchObject({ canAccess: true, granted: false, isCreator: false, visibility: 'workspace' });
    expect(body.modules.find((m) => m._id === hidden.module._id)).toMatchObject({
      canAccess: false, granted: false, openToRole: false, isCreator: false, visibility: 'private',
    });
  });

  it('PUT /module-access/{workspaceId}/{userId} replaces the whole grant set', async () => {
    covers('PUT /module-access/{workspaceId}/{userId}', 'GET /module-access/{workspaceId}/{userId}', 'GET /collections/{moduleId}');
    const { ws, hidden } = await mkPrivateSetup(ctx);
    const granted = parseAs(GrantSchema, expectOk(await grant(ctx, ws, [hidden.module._id])), 'PUT /module-access');
    expect(granted.moduleIds).toEqual([hidden.module._id]);
    expect((await access(ctx, ws)).modules.find((m) => m._id === hidden.module._id)).toMatchObject({ granted: true, canAccess: true });
    expectOk(await ctx.other.send('GET /collections/{moduleId}', { moduleId: hidden.module._id }));
    const cleared = parseAs(GrantSchema, expectOk(await grant(ctx, ws, [])), 'PUT /module-access');
    expect(cleared.moduleIds).toEqual([]);
    expect((await access(ctx, ws)).modules.find((m) => m._id === hidden.module._id)).toMatchObject({ granted: false, canAccess: false });
    expectJsonError(await ctx.other.send('GET /collections/{moduleId}', { moduleId: hidden.module._id }), 403);
  });

  if (ctx.spec) {
    it('spec: PUT /module-access/{workspaceId}/{userId} without moduleIds is refused', async () => {
      covers('PUT /module-access/{workspaceId}/{userId}');
      const { ws } = await mkPrivateSetup(ctx);
      const r = await ctx.owner.send('PUT /module-access/{workspaceId}/{userId}', { workspaceId: ws, userId: ctx.other.id }, { body: {} });
      expectJsonError(r, '4xx');
    });
  }

  if (ctx.observed) {
    it('observed: unknown module ids are dropped silently', async () => {
      covers('PUT /module-access/{workspaceId}/{userId}');
      const { ws, hidden } = await mkPrivateSetup(ctx);
      const body = parseAs(GrantSchema, expectOk(await grant(ctx, ws, [hidden.module._id, UNKNOWN_ID])), 'PUT /module-access');
      expect(body.moduleIds).toEqual([hidden.module._id]);
    });

    it('observed: GET and PUT are owner/admin only', async () => {
      covers('GET /module-access/{workspaceId}/{userId}', 'PUT /module-access/{workspaceId}/{userId}');
      const { ws, hidden } = await mkPrivateSetup(ctx);
      const params = { workspaceId: ws, userId: ctx.other.id };
      expectJsonError(await ctx.other.send('GET /module-access/{workspaceId}/{userId}', params), '4xx');
      expectJsonError(await ctx.other.send('PUT /module-access/{workspaceId}/{userId}', params, { body: { moduleIds: [hidden.module._id] } }), '4xx');
      expect((await access(ctx, ws)).modules.find((m) => m._id === hidden.module._id)?.granted).toBe(false);
    });

    it('observed: a guest opens only granted modules', async () => {
      covers('PUT /module-access/{workspaceId}/{userId}', 'GET /collections/{moduleId}', 'GET /modules/{workspaceId}');
      const ws = await mkWorkspace(ctx);
      await addMember(ctx, ws, ctx.other, 'guest');
      const a = await mkBoard(ctx, ws);
      const b = await mkBoard(ctx, ws);
      expectJsonError(await ctx.other.send('GET /collections/{moduleId}', { moduleId: a.module._id }), 403);
      expectOk(await grant(ctx, ws, [a.module._id]));
      expectOk(await ctx.other.send('GET /collections/{moduleId}', { moduleId: a.module._id }));
      expectJsonError(await ctx.other.send('GET /collections/{moduleId}', { moduleId: b.module._id }), 403);
      const visible = listed(await ctx.other.send('GET /modules/{workspaceId}', { workspaceId: ws }), 'modules', z.looseObject({ _id: z.string() }));
      expect(visible.map((m) => m._id)).toEqual([a.module._id]);
    });
  }
});

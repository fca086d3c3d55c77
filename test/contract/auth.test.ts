// Authentication and the main refusals shared by every route: 401, 403 (non-member, private module
// without a grant), unknown ids (spec 404 vs observed 400/404), database down, transport quirks.

import { expect, it } from 'vitest';
import { describeReply } from './client.js';
import { expectHtmlError, expectJsonError, expectOk, expectUnknownId, listed } from './expect-reply.js';
import { ABSENT_IN_OBSERVED, ENDPOINTS, routeParams } from './endpoints.js';
import { mkBoard, mkPrivateSetup } from './fixtures.js';
import { contractSuite, covers, DB_DOWN_STALL_MS, MALFORMED_ID, UNKNOWN_ID } from './harness.js';
import { ModuleSchema } from './schemas.js';

contractSuite('auth and refusals', (ctx) => {
  it('401 without a key, with a wrong key and with a wrong header name', async () => {
    covers('GET /workspaces');
    const none = await ctx.owner.send('GET /workspaces', {}, { key: null });
    expectJsonError(none, 401, ctx.observed ? 'No token or API key provided' : undefined);
    const wrong = await ctx.owner.send('GET /workspaces', {}, { key: `${ctx.owner.key}x` });
    expectJsonError(wrong, 401, ctx.observed ? 'Invalid API key' : undefined);
    const header = await ctx.owner.send('GET /workspaces', {}, { key: null, headers: { 'api-key': ctx.owner.key } });
    expectJsonError(header, 401);
    expectOk(await ctx.owner.send('GET /workspaces'));
  });

  it('every route refuses a call without a key', async () => {
    const params = Object.fromEntries(ENDPOINTS.flatMap(routeParams).map((p) => [p, UNKNOWN_ID]));
    const wrong: string[] = [];
    for (const route of ENDPOINTS) {
      const r = await ctx.owner.send(route, params, { key: null, body: route.startsWith('GET') ? undefined : {} });
      const absent = ctx.observed && ABSENT_IN_OBSERVED.has(route);
      const good = absent ? r.status === 404 || r.status === 401 : r.status === 401 && r.isJson;
      if (!good) wrong.push(describeReply(r));
    }
    expect(wrong).toEqual([]);
  });

  if (ctx.isEmulator) {
    it('401 for a key that was rotated', async () => {
      covers('GET /workspaces');
      const user = ctx.third;
      const oldKey = user.key;
      user.key = ctx.em.rotateKey(user.id);
      expectJsonError(await user.send('GET /workspaces', {}, { key: oldKey }), 401);
      expectOk(await user.send('GET /workspaces'));
    });
  }

  if (ctx.observed) {
    it('observed: a stale Authorization header wins over a valid x-api-key (401 "Invalid token")', async () => {
      covers('GET /workspaces');
      const r = await ctx.owner.send('GET /workspaces', {}, { headers: { authorization: 'Bearer stale.jwt.token' } });
      expectJsonError(r, 401, 'Invalid token');
    });
  }

  if (ctx.hasOther) {
    it('403 for a non-member (observed: module list answers 200 [], workspace routes are unchecked)', async () => {
      covers('GET /modules/{workspaceId}', 'GET /collections/{moduleId}', 'GET /records/{collectionId}', 'GET /workspaces/{id}', 'GET /workspace-members/{workspaceId}');
      const board = await mkBoard(ctx);
      const stranger = ctx.other;
      const modules = await stranger.send('GET /modules/{workspaceId}', { workspaceId: ctx.ws });
      if (ctx.spec) expectJsonError(modules, 403);
      else expect(listed(modules, 'modules', ModuleSchema)).toEqual([]);
      const notMember = ctx.observed ? 'Not a member of this workspace' : undefined;
      expectJsonError(await stranger.send('GET /collections/{moduleId}', { moduleId: board.module._id }), 403, notMember);
      expectJsonError(await stranger.send('GET /records/{collectionId}', { collectionId: board.collection._id }), 403, notMember);
      const ws = await stranger.send('GET /workspaces/{id}', { id: ctx.ws });
      const members = await stranger.send('GET /workspace-members/{workspaceId}', { workspaceId: ctx.ws });
      if (ctx.spec) {
        expectJsonError(ws, 403);
        expectJsonError(members, 403);
      } else {
        expectOk(ws);
        expectOk(members);
      }
      const mine = expectOk(await stranger.send('GET /workspaces'));
      expect(JSON.stringify(mine.workspaces)).not.toContain(ctx.ws);
    });

    it('403 for a private module without a grant', async () => {
      covers('GET /collections/{moduleId}', 'GET /records/{collectionId}', 'POST /records/{collectionId}', 'GET /columns/{moduleId}', 'GET /modules/{workspaceId}');
      const { ws, open, hidden } = await mkPrivateSetup(ctx);
      const member = ctx.other;
      const noAccess = ctx.observed ? 'You do not have access to this board' : undefined;
      expectOk(await member.send('GET /collections/{moduleId}', { moduleId: open.module._id }));
      expectJsonError(await member.send('GET /collections/{moduleId}', { moduleId: hidden.module._id }), 403, noAccess);
      expectJsonError(await member.send('GET /columns/{moduleId}', { moduleId: hidden.module._id }), 403, noAccess);
      expectJsonError(await member.send('GET /records/{collectionId}', { collectionId: hidden.collection._id }), 403, noAccess);
      const write = await member.send('POST /records/{collectionId}', { collectionId: hidden.collection._id }, { body: { name: 'sneaky' } });
      expectJsonError(write, 403, noAccess);
      const ids = listed(await member.send('GET /modules/{workspaceId}', { workspaceId: ws }), 'modules', ModuleSchema).map((m) => m._id);
      expect(ids).toContain(open.module._id);
      if (ctx.observed) expect(ids).not.toContain(hidden.module._id);
    });
  }

  it('unknown ids: spec 404; observed 404 "Board not found" for module ids, 400 "Invalid board id" for child ids', async () => {
    covers('GET /collections/{moduleId}', 'GET /records/{collectionId}', 'GET /record-values/{recordId}', 'GET /amendments/{recordId}', 'PUT /columns/{columnId}');
    expectUnknownId(ctx, await ctx.owner.send('GET /collections/{moduleId}', { moduleId: UNKNOWN_ID }), 'module');
    expectUnknownId(ctx, await ctx.owner.send('GET /records/{collectionId}', { collectionId: UNKNOWN_ID }), 'child');
    expectUnknownId(ctx, await ctx.owner.send('GET /record-values/{recordId}', { recordId: UNKNOWN_ID }), 'child');
    expectUnknownId(ctx, await ctx.owner.send('GET /amendments/{recordId}', { recordId: UNKNOWN_ID }), 'child');
    expectUnknownId(ctx, await ctx.owner.send('PUT /columns/{columnId}', { columnId: UNKNOWN_ID }, { body: { name: 'x' } }), 'child');
    if (ctx.spec) {
      covers('GET /workspaces/{id}');
      expectJsonError(await ctx.owner.send('GET /workspaces/{id}', { id: UNKNOWN_ID }), 404);
    }
  });

  it('malformed ids: spec 404; observed 400 for module and child ids, 500 for workspace ids', async () => {
    covers('GET /collections/{moduleId}', 'GET /records/{collectionId}', 'GET /workspaces/{id}');
    const mod = await ctx.owner.send('GET /collections/{moduleId}', { moduleId: MALFORMED_ID });
    const child = await ctx.owner.send('GET /records/{collectionId}', { collectionId: MALFORMED_ID });
    const ws = await ctx.owner.send('GET /workspaces/{id}', { id: MALFORMED_ID });
    if (ctx.spec) {
      expectJsonError(mod, 404);
      expectJsonError(child, 404);
      expectJsonError(ws, 404);
    } else {
      expectJsonError(mod, 400);
      expectJsonError(child, 400, 'Invalid board id');
      expect(ws.status, describeReply(ws)).toBe(500);
    }
  });

  if (ctx.observed) {
    it('observed: unknown routes get Express\'s HTML 404 page', async () => {
      expectHtmlError(await ctx.owner.raw('GET', '/no-such-route'), 404);
      expectHtmlError(await ctx.owner.raw('GET', '/notifications'), 404);
    });

    it('observed: GET answers carry a weak ETag; If-None-Match gets 304 unless the request says Cache-Control: no-cache', async () => {
      covers('GET /workspaces/{id}');
      const first = await ctx.owner.send('GET /workspaces/{id}', { id: ctx.ws });
      expectOk(first);
      const etag = first.headers.get('etag');
      expect(etag, describeReply(first)).toMatch(/^W\//);
      // fetch adds `Cache-Control: no-cache` to a conditional request unless one is set
      const again = await ctx.owner.send('GET /workspaces/{id}', { id: ctx.ws }, { headers: { 'if-none-match': String(etag), 'cache-control': 'max-age=0' } });
      expect(again.status, describeReply(again)).toBe(304);
      // Express's `fresh` (found against the rebuilt deployed service): no-cache always gets the body
      const fresh = await ctx.owner.send('GET /workspaces/{id}', { id: ctx.ws }, { headers: { 'if-none-match': String(etag), 'cache-control': 'no-cache' } });
      expect(fresh.status, describeReply(fresh)).toBe(200);
    });

    it('observed: GET / is an unauthenticated health check', async () => {
      const r = await ctx.owner.raw('GET', '/', { apiPrefix: false, key: null });
      const body = expectOk(r);
      for (const field of ['status', 'service', 'database', 'uptimeSeconds', 'time']) expect(body).toHaveProperty(field);
    });
  }

  if (ctx.isEmulator) {
    it('database down: spec 503 {message}; observed stalls, then 401 "Invalid token" for x-api-key callers', async () => {
      covers('GET /workspaces');
      ctx.em.faults.setDatabaseDown(true);
      const r = await ctx.owner.send('GET /workspaces');
      if (ctx.spec) {
        expectJsonError(r, 503);
      } else {
        expectJsonError(r, 401, 'Invalid token');
        expect(r.ms).toBeGreaterThanOrEqual(DB_DOWN_STALL_MS * 0.8);
        const health = await ctx.owner.raw('GET', '/', { apiPrefix: false, key: null });
        expect(health.status, describeReply(health)).toBe(503);
      }
      ctx.em.faults.setDatabaseDown(false);
      expectOk(await ctx.owner.send('GET /workspaces'));
    });
  }
});

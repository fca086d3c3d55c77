// Hostile and broken input to every route: malformed JSON, huge bodies, wrong types, missing
// fields, unknown and malformed ids, hostile strings and __proto__ keys. Each answer must be the
// documented one for the dialect, and the server must still serve the next request.

import { beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { describeReply, type Reply } from './client.js';
import { ENDPOINTS, routeParams, splitRoute, type RouteName } from './endpoints.js';
import { expectOk, listed, written } from './expect-reply.js';
import { mkBoard, mkColumn, mkModule, setCell } from './fixtures.js';
import { contractSuite, MALFORMED_ID, type Ctx } from './harness.js';
import {
  allParams, BODY_ROUTES, buildWorld, HOSTILE_STRINGS, observedFamily, PROTO_BODY, UNKNOWN_ID, type World,
} from './bad-input-cases.js';
import {
  AmendmentSchema, CollectionSchema, ColumnSchema, ModuleSchema, RecordSchema, RecordValueSchema, WorkspaceSchema,
} from './schemas.js';

type Verdict = string | null;
const WorkspaceRowSchema = z.looseObject({ workspace: WorkspaceSchema });
const MB = 1024 * 1024;

function statusIn(r: Reply, ok: (s: number) => boolean, what: string): Verdict {
  return ok(r.status) ? null : `expected ${what}: ${describeReply(r)}`;
}

/** A failure with a JSON {message} body whose status passes `ok`. */
function jsonError(r: Reply, ok: (s: number) => boolean, what: string): Verdict {
  if (!ok(r.status)) return `expected ${what}: ${describeReply(r)}`;
  const msg = r.isJson ? (r.json as { message?: unknown } | undefined)?.message : undefined;
  return typeof msg === 'string' ? null : `expected a JSON {message}: ${describeReply(r)}`;
}

function htmlError(r: Reply, statuses: number[]): Verdict {
  return statuses.includes(r.status) && r.isHtml ? null : `expected an HTML ${statuses.join('/')} page: ${describeReply(r)}`;
}

const is4xx = (s: number): boolean => s >= 400 && s < 500;
const isErr = (s: number): boolean => s >= 400;
const is2xx = (s: number): boolean => s >= 200 && s < 300;
const bodyRoutes = Object.keys(BODY_ROUTES) as RouteName[];

contractSuite('bad input', (ctx) => {
  let world: World;
  beforeAll(async () => {
    world = await buildWorld(ctx);
  });

  /** Runs each probe, collects wrong answers, and checks the server still serves after each. */
  async function probe(cases: Array<[string, () => Promise<Reply>, (r: Reply) => Verdict]>): Promise<void> {
    const problems: string[] = [];
    for (const [label, send, judge] of cases) {
      let r: Reply;
      try {
        r = await send();
      } catch (err) {
        problems.push(`${label}: no HTTP answer: ${String(err)}`);
        continue;
      }
      if (label.startsWith('POST /workspaces') && is2xx(r.status)) adoptWorkspace(r);
      const verdict = judge(r);
      if (verdict) problems.push(`${label}: ${verdict}`);
      const next = await ctx.owner.send('GET /workspaces');
      if (next.status !== 200) problems.push(`${label}: not serving afterwards: ${describeReply(next)}`);
    }
    expect(problems).toEqual([]);
  }

  function adoptWorkspace(r: Reply): void {
    const id = (r.json as { workspace?: { _id?: unknown } } | undefined)?.workspace?._id;
    if (typeof id === 'string') ctx.trackWorkspace(id, ctx.owner);
  }

  const send = (route: RouteName, params: Record<string, string>, opts: Parameters<Ctx['owner']['send']>[2] = {}) =>
    () => ctx.owner.send(route, params, opts);

  it('malformed JSON: spec 4xx JSON {message}; observed Express HTML 400', async () => {
    const noBody = ENDPOINTS.filter((r) => !r.startsWith('GET') && !bodyRoutes.includes(r) && r !== 'POST /api-key/generate');
    const targets = ctx.spec ? bodyRoutes : [...bodyRoutes, ...noBody];
    await probe(targets.map((route) => {
      const params = bodyRoutes.includes(route) ? world.params : allParams(UNKNOWN_ID);
      const absent = observedFamily(route) === 'absent';
      return [route, send(route, params, { rawBody: '{"name": "x",' }),
        (r) => (ctx.spec ? jsonError(r, is4xx, '4xx') : htmlError(r, absent ? [400, 404] : [400]))];
    }));
  });

  it('a body of several MB is refused with 413 (spec: JSON {message})', async () => {
    const huge = JSON.stringify({ name: 'x'.repeat(3 * MB), message: 'y', value: 'z' });
    const targets = ctx.live ? bodyRoutes.slice(0, 3) : bodyRoutes;
    await probe(targets.map((route) => [route, send(route, world.params, { rawBody: huge }),
      (r) => (ctx.spec ? jsonError(r, (s) => s === 413, '413') : statusIn(r, (s) => s === 413, '413'))]));
  });

  it('wrong types: spec 4xx JSON; observed accepts or answers 400/500 with a JSON message', async () => {
    await probe(bodyRoutes.map((route) => {
      const c = BODY_ROUTES[route];
      return [route, send(route, world.params, { body: c?.wrong }),
        (r) => (ctx.spec ? jsonError(r, is4xx, '4xx') : is2xx(r.status) ? null : jsonError(r, (s) => s === 400 || s === 500 || s === c?.observedWrong, '400/500'))];
    }));
  });

  it('missing required fields: spec 4xx JSON; observed 500 for names, 400 for amendments and automations', async () => {
    const required = bodyRoutes.filter((r) => BODY_ROUTES[r]?.required);
    await probe(required.map((route) => {
      const c = BODY_ROUTES[route];
      const judge = (r: Reply): Verdict => {
        if (ctx.spec) return jsonError(r, is4xx, '4xx');
        if (c?.observedMissing) return jsonError(r, (s) => s === c.observedMissing, String(c.observedMissing));
        if (splitRoute(route).method === 'PUT' && is2xx(r.status)) return null;
        return jsonError(r, (s) => s === 400 || s === 500, '400/500');
      };
      return [route, send(route, world.params, { body: {} }), judge];
    }));
  });

  it('unknown ids: spec 404 JSON; observed 404 "Board not found" (module), 400 "Invalid board id" (child), HTML 404 (absent routes)', async () => {
    const withIds = ENDPOINTS.filter((r) => routeParams(r).length > 0);
    const cases: Array<[string, () => Promise<Reply>, (r: Reply) => Verdict]> = withIds.map((route) => {
      const body = BODY_ROUTES[route]?.valid(world) ?? (splitRoute(route).method === 'GET' ? undefined : {});
      const judge = (r: Reply): Verdict => {
        if (ctx.spec) return jsonError(r, (s) => s === 404, '404');
        switch (observedFamily(route)) {
          case 'module': return jsonError(r, (s) => s === 404, '404') ?? messageIs(r, 'Board not found');
          case 'child': return jsonError(r, (s) => s === 400, '400') ?? messageIs(r, 'Invalid board id');
          case 'absent': return htmlError(r, [404]);
          default: return null; // undocumented: the answer is free, the server must keep serving
        }
      };
      return [route, send(route, allParams(UNKNOWN_ID), { body }), judge];
    });
    cases.push(['POST /record-values (unknown ids in the body)',
      send('POST /record-values', {}, { body: { ...world.cellBody, record: UNKNOWN_ID, column: UNKNOWN_ID } }),
      (r) => (ctx.spec ? jsonError(r, is4xx, '4xx') : statusIn(r, isErr, 'an error'))]);
    await probe(cases);
  });

  it('malformed and hostile ids in the path: spec 404 JSON; observed 400 (module, child, member add and role change), 500 (other workspace routes)', async () => {
    const withIds = ENDPOINTS.filter((r) => routeParams(r).length > 0);
    const cases: Array<[string, () => Promise<Reply>, (r: Reply) => Verdict]> = [];
    for (const bad of [MALFORMED_ID, `'; DROP TABLE records; --`, '../../etc/passwd']) {
      for (const route of withIds) {
        const body = BODY_ROUTES[route]?.valid(world) ?? (splitRoute(route).method === 'GET' ? undefined : {});
        const judge = (r: Reply): Verdict => {
          if (ctx.spec) return jsonError(r, (s) => s === 404, '404');
          switch (observedFamily(route)) {
            case 'module': return jsonError(r, (s) => s === 400, '400');
            case 'child': return jsonError(r, (s) => s === 400, '400') ?? messageIs(r, 'Invalid board id');
            case 'workspace': return statusIn(r, (s) => s === 500, '500');
            case 'checked-workspace': return jsonError(r, (s) => s === 400, '400') ?? messageIs(r, 'Invalid workspace ID format');
            case 'absent': return htmlError(r, [404]);
            default: return null;
          }
        };
        cases.push([`${route} with ${JSON.stringify(bad)}`, send(route, allParams(bad), { body }), judge]);
      }
    }
    await probe(cases);
  });

  it('hostile strings round-trip exactly through names, messages and values', async () => {
    const mod = await mkModule(ctx, world.params.workspaceId);
    const board = await mkBoard(ctx, world.params.workspaceId);
    const problems: string[] = [];
    for (const s of HOSTILE_STRINGS) {
      const ws = written(ctx, await ctx.owner.send('POST /workspaces', {}, { body: { name: s } }), 'workspace', WorkspaceSchema);
      ctx.trackWorkspace(ws._id, ctx.owner);
      const wsBack = listed(await ctx.owner.send('GET /workspaces'), 'workspaces', WorkspaceRowSchema).map((row) => row.workspace).find((w) => w._id === ws._id);
      if (wsBack?.name !== s) problems.push(`workspace name ${JSON.stringify(s)} came back as ${JSON.stringify(wsBack?.name)}`);
      const m = await mkModule(ctx, world.params.workspaceId, { name: s });
      const mBack = listed(await ctx.owner.send('GET /modules/{workspaceId}', { workspaceId: world.params.workspaceId }), 'modules', ModuleSchema).find((x) => x._id === m._id);
      if (mBack?.name !== s) problems.push(`module name ${JSON.stringify(s)} came back as ${JSON.stringify(mBack?.name)}`);
      const c = written(ctx, await ctx.owner.send('POST /collections/{moduleId}', { moduleId: mod._id }, { body: { name: s } }), 'collection', CollectionSchema, { bareInSpec: true });
      const cBack = listed(await ctx.owner.send('GET /collections/{moduleId}', { moduleId: mod._id }), 'collections', CollectionSchema).find((x) => x._id === c._id);
      if (cBack?.name !== s) problems.push(`collection name ${JSON.stringify(s)} came back as ${JSON.stringify(cBack?.name)}`);
      const rec = written(ctx, await ctx.owner.send('POST /records/{collectionId}', { collectionId: c._id }, { body: { name: s } }), 'record', RecordSchema);
      const rBack = listed(await ctx.owner.send('GET /records/{collectionId}', { collectionId: c._id }), 'records', RecordSchema).find((x) => x._id === rec._id);
      if (rBack?.name !== s) problems.push(`record name ${JSON.stringify(s)} came back as ${JSON.stringify(rBack?.name)}`);
      const col = await mkColumn(ctx, board.module._id, 'text', { name: s });
      const colBack = listed(await ctx.owner.send('GET /columns/{moduleId}', { moduleId: board.module._id }), 'columns', ColumnSchema).find((x) => x._id === col._id);
      if (colBack?.name !== s) problems.push(`column name ${JSON.stringify(s)} came back as ${JSON.stringify(colBack?.name)}`);
      await setCell(ctx, board.record, col._id, s);
      const vBack = listed(await ctx.owner.send('GET /record-values/{recordId}', { recordId: board.record._id }), 'values', RecordValueSchema)
        .find((v) => (typeof v.column === 'object' && v.column !== null ? v.column._id : v.column) === col._id);
      if (vBack?.value !== s) problems.push(`cell value ${JSON.stringify(s)} came back as ${JSON.stringify(vBack?.value)}`);
      written(ctx, await ctx.owner.send('POST /amendments/{recordId}', { recordId: rec._id }, { body: { message: s } }), 'amendment', AmendmentSchema);
      const aBack = listed(await ctx.owner.send('GET /amendments/{recordId}', { recordId: rec._id }), 'amendments', AmendmentSchema);
      if (aBack[0]?.message !== s) problems.push(`amendment ${JSON.stringify(s)} came back as ${JSON.stringify(aBack[0]?.message)}`);
    }
    expect(problems).toEqual([]);
    const feed = await ctx.owner.send('GET /activity/{workspaceId}', { workspaceId: world.params.workspaceId }, { query: { action: `'; DROP TABLE activity; --`, limit: 10 } });
    expect(expectOk(feed).activities).toEqual([]);
  });

  it('__proto__ and constructor keys neither pollute the server nor leak into objects', async () => {
    const board = await mkBoard(ctx, world.params.workspaceId);
    const replies = [
      await ctx.owner.send('POST /workspaces', {}, { rawBody: PROTO_BODY }),
      await ctx.owner.send('POST /records/{collectionId}', { collectionId: board.collection._id }, { rawBody: PROTO_BODY }),
      await ctx.owner.send('PUT /records/{recordId}', { recordId: board.record._id }, { rawBody: PROTO_BODY }),
      await ctx.owner.send('PUT /workspaces/{id}', { id: world.params.workspaceId }, { rawBody: PROTO_BODY }),
    ];
    if (is2xx(replies[0].status)) adoptWorkspace(replies[0]);
    for (const r of replies) {
      const verdict = is2xx(r.status) ? null : jsonError(r, is4xx, '2xx or 4xx');
      expect(verdict).toBeNull();
      expect(r.text).not.toContain('polluted');
    }
    const rows = listed(await ctx.owner.send('GET /records/{collectionId}', { collectionId: board.collection._id }), 'records', RecordSchema);
    expect(rows.find((x) => x._id === board.record._id)?.isArchived).toBe(false);
    for (const row of rows) expect(row).not.toHaveProperty('polluted');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    expectOk(await ctx.owner.send('GET /workspaces'));
  });
});

function messageIs(r: Reply, message: string): Verdict {
  const got = (r.json as { message?: unknown } | undefined)?.message;
  return got === message ? null : `expected message ${JSON.stringify(message)}: ${describeReply(r)}`;
}

// Inputs for bad-input.test.ts: a world of real ids to aim at, and per body-taking route a valid
// body, a wrong-typed body and whether the spec marks fields as required.

import type { Params } from './client.js';
import { ENDPOINTS, routeParams, type RouteName } from './endpoints.js';
import { addMember, mkBoard, mkColumn, mkWorkspace, setCell } from './fixtures.js';
import { expectOk } from './expect-reply.js';
import type { Ctx } from './harness.js';
import { UNKNOWN_ID } from './harness.js';

export interface World {
  params: Params;
  /** A valid body for POST /record-values on a fresh (record, column) pair. */
  cellBody: Record<string, string>;
}

export async function buildWorld(ctx: Ctx): Promise<World> {
  const ws = await mkWorkspace(ctx);
  const member = ctx.hasOther ? ctx.other : ctx.owner;
  if (ctx.hasOther) await addMember(ctx, ws, ctx.other, 'member');
  const board = await mkBoard(ctx, ws);
  const column = await mkColumn(ctx, board.module._id, 'text');
  const spare = await mkColumn(ctx, board.module._id, 'text');
  const value = await setCell(ctx, board.record, column._id, 'v');
  const amendment = expectOk(await ctx.owner.send('POST /amendments/{recordId}', { recordId: board.record._id }, { body: { message: 'm' } }));
  const automation = expectOk(await ctx.owner.send('POST /automations/{moduleId}', { moduleId: board.module._id }, {
    body: { name: 'inert', trigger: { type: 'record_archived' }, conditions: [], match: 'all', actions: [{ type: 'post_amendment', value: 'x' }] },
  }));
  const feed = expectOk(await ctx.owner.send('GET /activity/{workspaceId}', { workspaceId: ws }, { query: { limit: 1 } }));
  const idOf = (x: unknown): string => String((x as { _id: unknown })._id);
  return {
    params: {
      id: ws,
      workspaceId: ws,
      userId: member.id,
      moduleId: board.module._id,
      collectionId: board.collection._id,
      recordId: board.record._id,
      recordValueId: value._id,
      columnId: column._id,
      amendmentId: idOf(amendment.amendment),
      automationId: idOf(automation.automation),
      activityId: idOf((feed.activities as unknown[])[0]),
    },
    cellBody: {
      record: board.record._id, column: spare._id, collectionName: board.collection._id,
      module: board.module._id, workspace: ws, value: 'x',
    },
  };
}

/** Path parameters for `route`, every one replaced by `id`. */
export function allParams(id: string): Params {
  return Object.fromEntries(ENDPOINTS.flatMap(routeParams).map((p) => [p, id]));
}

export interface BodyCase {
  valid: (w: World) => Record<string, unknown>;
  wrong: Record<string, unknown>;
  /** The spec marks some field of this body as required (*). */
  required: boolean;
  /** observed-behaviour.md names the status of a missing-field refusal. */
  observedMissing?: number;
  /** Observed: the status of the wrong-typed body when it is neither 2xx, 400 nor 500. */
  observedWrong?: number;
}

const automation = { name: 'r', trigger: { type: 'record_archived' }, conditions: [], match: 'all', actions: [{ type: 'post_amendment', value: 'x' }] };
const wrongAutomation = { name: 7, trigger: 'now', conditions: {}, match: 'some', actions: 'go' };

export const BODY_ROUTES: Partial<Record<RouteName, BodyCase>> = {
  'POST /workspaces': { valid: () => ({ name: 'w' }), wrong: { name: { $gt: '' }, icon: 42 }, required: true, observedMissing: 500 },
  'PUT /workspaces/{id}': { valid: () => ({ description: 'd' }), wrong: { name: ['x'], description: { a: 1 } }, required: false },
  'POST /workspace-members/{workspaceId}': { valid: (w) => ({ userId: w.params.userId, role: 'member' }), wrong: { userId: 123, role: ['admin'] }, required: true, observedWrong: 404 },
  'PUT /workspace-members/{workspaceId}/{userId}': { valid: () => ({ role: 'member' }), wrong: { role: 7 }, required: true },
  'POST /modules/{workspaceId}': { valid: () => ({ name: 'm' }), wrong: { name: {}, tags: 'nope' }, required: true, observedMissing: 500 },
  'PUT /modules/{moduleId}': { valid: () => ({ description: 'd' }), wrong: { tags: 'nope', visibility: 5 }, required: false },
  'POST /collections/{moduleId}': { valid: () => ({ name: 'c' }), wrong: { name: [], position: 'first' }, required: true, observedMissing: 500 },
  'PUT /collections/{collectionId}': { valid: () => ({ name: 'c' }), wrong: { position: 'x', isCollapsed: 'yes' }, required: false },
  'POST /records/{collectionId}': { valid: () => ({ name: 'r' }), wrong: { name: { a: 1 } }, required: true, observedMissing: 500 },
  'POST /records/{recordId}/sub-records': { valid: () => ({ name: 's' }), wrong: { name: {} }, required: true },
  'PUT /records/{recordId}': { valid: () => ({ name: 'r' }), wrong: { isCompleted: 'maybe', position: 'top' }, required: false },
  'POST /record-values': { valid: (w) => w.cellBody, wrong: { record: 5, column: {}, value: { x: 1 } }, required: true },
  'PUT /record-values/{recordValueId}': { valid: () => ({ value: 'v' }), wrong: { value: { nested: true } }, required: true },
  'POST /columns/{moduleId}': { valid: () => ({ name: 'c', type: 'text' }), wrong: { name: 1, type: ['text'] }, required: true, observedMissing: 500 },
  'PUT /columns/{columnId}': { valid: () => ({ name: 'c' }), wrong: { width: 'wide', statusOptions: 'none' }, required: false },
  'POST /amendments/{recordId}': { valid: () => ({ message: 'm' }), wrong: { message: {}, mentions: 'all' }, required: true, observedMissing: 400 },
  'PUT /amendments/{amendmentId}': { valid: () => ({ message: 'm' }), wrong: { message: [] }, required: true, observedMissing: 400 },
  'POST /automations/{moduleId}': { valid: () => automation, wrong: wrongAutomation, required: true, observedMissing: 400 },
  'POST /automations/workspace/{workspaceId}': { valid: () => automation, wrong: wrongAutomation, required: true, observedMissing: 400 },
  'PUT /automations/{automationId}': { valid: () => ({ isActive: false }), wrong: { isActive: { no: 1 }, trigger: 'soon' }, required: false },
  'PUT /module-access/{workspaceId}/{userId}': { valid: () => ({ moduleIds: [] }), wrong: { moduleIds: 'all' }, required: true },
};

export type IdFamily = 'module' | 'child' | 'workspace' | 'checked-workspace' | 'absent' | 'other';

/** How observed-behaviour.md classes the first id in a route's path. */
export function observedFamily(route: RouteName): IdFamily {
  const [param] = routeParams(route);
  if (route.startsWith('GET /notifications') || route.includes('/notifications/') || route.endsWith('/accept') || route.endsWith('/decline')) return 'absent';
  if (param === 'moduleId') return 'module';
  if (['collectionId', 'columnId', 'recordId', 'recordValueId', 'amendmentId'].includes(param)) return 'child';
  // The deployed service checks the workspace id itself on these two (400 "Invalid workspace ID format").
  if (route === 'POST /workspace-members/{workspaceId}' || route === 'PUT /workspace-members/{workspaceId}/{userId}') return 'checked-workspace';
  if (route.includes('/workspaces/') || route.includes('/workspace-members/')) return 'workspace';
  return 'other';
}

export const HOSTILE_STRINGS = [
  `He said "hi" & 'bye' <b>bold</b> \\ back\\slash`,
  `'; DROP TABLE records; --`,
  `{"$gt": ""}`,
  '😀🚀 👩‍👩‍👧‍👦 emoji',
  'مرحبا بالعالم \u202Eevil\u202C',
  '__proto__',
  'tab\tnew\nline',
];

export const PROTO_BODY = '{"name":"proto","__proto__":{"polluted":"yes","isArchived":true},"constructor":{"prototype":{"polluted":"yes"}}}';

export { UNKNOWN_ID };

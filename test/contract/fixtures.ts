// Fixture builders that go through the API only, so the same tests run against a live service.

import { expect } from 'vitest';
import type { Actor } from './client.js';
import { written } from './expect-reply.js';
import type { Ctx } from './harness.js';
import {
  CollectionSchema,
  ColumnSchema,
  MemberSchema,
  ModuleSchema,
  RecordSchema,
  RecordValueSchema,
  type BoardRecord,
  type Collection,
  type Column,
  type ColumnType,
  type Member,
  type Module,
  type RecordValue,
} from './schemas.js';

let counter = 0;
export function uniqueName(prefix: string): string {
  counter += 1;
  return `${prefix} ${counter}`;
}

export async function mkWorkspace(ctx: Ctx, actor: Actor = ctx.owner): Promise<string> {
  return ctx.createWorkspace(actor, uniqueName('Contract WS'));
}

export async function mkModule(
  ctx: Ctx,
  ws: string = ctx.ws,
  body: Record<string, unknown> = {},
  actor: Actor = ctx.owner,
): Promise<Module> {
  const r = await actor.send('POST /modules/{workspaceId}', { workspaceId: ws }, { body: { name: uniqueName('Board'), ...body } });
  return written(ctx, r, 'module', ModuleSchema);
}

export async function mkCollection(ctx: Ctx, moduleId: string, body: Record<string, unknown> = {}, actor: Actor = ctx.owner): Promise<Collection> {
  const r = await actor.send('POST /collections/{moduleId}', { moduleId }, { body: { name: uniqueName('Group'), ...body } });
  return written(ctx, r, 'collection', CollectionSchema, { bareInSpec: true });
}

export async function mkRecord(ctx: Ctx, collectionId: string, name = uniqueName('Row'), actor: Actor = ctx.owner): Promise<BoardRecord> {
  const r = await actor.send('POST /records/{collectionId}', { collectionId }, { body: { name } });
  return written(ctx, r, 'record', RecordSchema);
}

export async function mkSubRecord(ctx: Ctx, recordId: string, name = uniqueName('Sub'), actor: Actor = ctx.owner): Promise<BoardRecord> {
  const r = await actor.send('POST /records/{recordId}/sub-records', { recordId }, { body: { name } });
  return written(ctx, r, 'record', RecordSchema);
}

export async function mkColumn(
  ctx: Ctx,
  moduleId: string,
  type: ColumnType,
  extra: Record<string, unknown> = {},
  actor: Actor = ctx.owner,
): Promise<Column> {
  const r = await actor.send('POST /columns/{moduleId}', { moduleId }, { body: { name: uniqueName(`Col ${type}`), type, ...extra } });
  return written(ctx, r, 'column', ColumnSchema, { bareInSpec: true });
}

/** Creates the value row of a (record, column) pair that has none. */
export async function setCell(ctx: Ctx, rec: BoardRecord, columnId: string, value: string, actor: Actor = ctx.owner): Promise<RecordValue> {
  const r = await actor.send('POST /record-values', {}, {
    body: { record: rec._id, column: columnId, collectionName: rec.collectionName, module: rec.module, workspace: rec.workspace, value },
  });
  return written(ctx, r, 'recordValue', RecordValueSchema, { bareInSpec: true });
}

/** Adds an existing user by id. */
export async function addMember(ctx: Ctx, ws: string, user: Actor, role: 'admin' | 'member' | 'guest'): Promise<Member> {
  const r = await ctx.owner.send('POST /workspace-members/{workspaceId}', { workspaceId: ws }, { body: { userId: user.id, role } });
  return written(ctx, r, 'member', MemberSchema);
}

export interface Board {
  ws: string;
  module: Module;
  collection: Collection;
  record: BoardRecord;
}

/** A module with one collection and one record, in the fixture workspace unless told otherwise. */
export async function mkBoard(ctx: Ctx, ws: string = ctx.ws): Promise<Board> {
  const module = await mkModule(ctx, ws);
  const collection = await mkCollection(ctx, module._id);
  const record = await mkRecord(ctx, collection._id);
  return { ws, module, collection, record };
}

/** A fresh workspace where `other` is a `member`, with a private module `other` has no grant to. */
export async function mkPrivateSetup(ctx: Ctx): Promise<{ ws: string; open: Board; hidden: Board }> {
  const ws = await mkWorkspace(ctx);
  await addMember(ctx, ws, ctx.other, 'member');
  const open = await mkBoard(ctx, ws);
  const hidden = await mkBoard(ctx, ws);
  const r = await ctx.owner.send('PUT /modules/{moduleId}', { moduleId: hidden.module._id }, { body: { visibility: 'private' } });
  expect(written(ctx, r, 'module', ModuleSchema).visibility).toBe('private');
  return { ws, open, hidden };
}

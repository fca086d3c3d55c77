// Amendments: post, reply, list oldest first, author-only edits, delete (tombstone while live
// replies exist), amendmentCount.

import { expect, it } from 'vitest';
import { expectJsonError, expectMessage, listed, written } from './expect-reply.js';
import { addMember, mkBoard, mkWorkspace } from './fixtures.js';
import { contractSuite, covers, type Ctx } from './harness.js';
import type { Actor } from './client.js';
import { AmendmentSchema, RecordSchema, type Amendment } from './schemas.js';

async function post(ctx: Ctx, recordId: string, body: Record<string, unknown>, actor: Actor = ctx.owner): Promise<Amendment> {
  return written(ctx, await actor.send('POST /amendments/{recordId}', { recordId }, { body }), 'amendment', AmendmentSchema);
}

async function list(ctx: Ctx, recordId: string): Promise<Amendment[]> {
  return listed(await ctx.owner.send('GET /amendments/{recordId}', { recordId }), 'amendments', AmendmentSchema);
}

contractSuite('amendments', (ctx) => {
  it('POST /amendments/{recordId} posts a note by the caller', async () => {
    covers('POST /amendments/{recordId}');
    const board = await mkBoard(ctx);
    const a = await post(ctx, board.record._id, { message: 'First note' });
    expect(a).toMatchObject({
      record: board.record._id, module: board.module._id, workspace: ctx.ws, message: 'First note',
      parentComment: null, edited: false, isDeleted: false,
    });
    expect(a.user?._id).toBe(ctx.owner.id);
  });

  it('POST /amendments/{recordId} without a message is refused', async () => {
    covers('POST /amendments/{recordId}');
    const board = await mkBoard(ctx);
    expectJsonError(await ctx.owner.send('POST /amendments/{recordId}', { recordId: board.record._id }, { body: {} }), ctx.observed ? 400 : '4xx');
    expect(await list(ctx, board.record._id)).toEqual([]);
  });

  it('replies carry parentComment; GET lists oldest first; amendmentCount counts them', async () => {
    covers('POST /amendments/{recordId}', 'GET /amendments/{recordId}', 'GET /records/{collectionId}');
    const board = await mkBoard(ctx);
    const root = await post(ctx, board.record._id, { message: 'root' });
    const reply = await post(ctx, board.record._id, { message: 'reply', parentComment: root._id });
    expect(reply.parentComment).toBe(root._id);
    const all = await list(ctx, board.record._id);
    expect(all.map((a) => a._id)).toEqual([root._id, reply._id]);
    expect(Date.parse(all[0].createdAt)).toBeLessThanOrEqual(Date.parse(all[1].createdAt));
    const records = listed(await ctx.owner.send('GET /records/{collectionId}', { collectionId: board.collection._id }), 'records', RecordSchema);
    expect(records[0].amendmentCount).toBe(2);
  });

  it('PUT /amendments/{amendmentId} by the author edits and sets edited', async () => {
    covers('PUT /amendments/{amendmentId}');
    const board = await mkBoard(ctx);
    const a = await post(ctx, board.record._id, { message: 'draft' });
    const r = await ctx.owner.send('PUT /amendments/{amendmentId}', { amendmentId: a._id }, { body: { message: 'final' } });
    expect(written(ctx, r, 'amendment', AmendmentSchema)).toMatchObject({ _id: a._id, message: 'final', edited: true });
    expect((await list(ctx, board.record._id))[0]).toMatchObject({ message: 'final', edited: true });
  });

  if (ctx.observed) {
    it('observed: an edit that does not change the text leaves edited false', async () => {
      covers('PUT /amendments/{amendmentId}');
      const board = await mkBoard(ctx);
      const a = await post(ctx, board.record._id, { message: 'same' });
      const r = await ctx.owner.send('PUT /amendments/{amendmentId}', { amendmentId: a._id }, { body: { message: 'same' } });
      expect(written(ctx, r, 'amendment', AmendmentSchema).edited).toBe(false);
    });
  }

  if (ctx.hasOther) {
    it('editing someone else\'s amendment is refused', async () => {
      covers('PUT /amendments/{amendmentId}', 'POST /amendments/{recordId}');
      const ws = await mkWorkspace(ctx);
      await addMember(ctx, ws, ctx.other, 'admin');
      const board = await mkBoard(ctx, ws);
      const mine = await post(ctx, board.record._id, { message: 'owner wrote this' });
      const r = await ctx.other.send('PUT /amendments/{amendmentId}', { amendmentId: mine._id }, { body: { message: 'hijacked' } });
      expectJsonError(r, '4xx');
      expect((await list(ctx, board.record._id))[0]).toMatchObject({ message: 'owner wrote this', edited: false });
      const theirs = await post(ctx, board.record._id, { message: 'other wrote this' }, ctx.other);
      const own = await ctx.other.send('PUT /amendments/{amendmentId}', { amendmentId: theirs._id }, { body: { message: 'other edited' } });
      expect(written(ctx, own, 'amendment', AmendmentSchema).message).toBe('other edited');
    });
  }

  it('DELETE /amendments/{amendmentId} without live replies removes it from the list', async () => {
    covers('DELETE /amendments/{amendmentId}', 'GET /amendments/{recordId}');
    const board = await mkBoard(ctx);
    const a = await post(ctx, board.record._id, { message: 'gone soon' });
    expectMessage(await ctx.owner.send('DELETE /amendments/{amendmentId}', { amendmentId: a._id }));
    expect(await list(ctx, board.record._id)).toEqual([]);
  });

  it('DELETE of a parent with live replies keeps it as a tombstone (observed: message "", user null)', async () => {
    covers('DELETE /amendments/{amendmentId}', 'GET /amendments/{recordId}');
    const board = await mkBoard(ctx);
    const root = await post(ctx, board.record._id, { message: 'parent' });
    const reply = await post(ctx, board.record._id, { message: 'child', parentComment: root._id });
    expectMessage(await ctx.owner.send('DELETE /amendments/{amendmentId}', { amendmentId: root._id }));
    const all = await list(ctx, board.record._id);
    expect(all.map((a) => a._id)).toEqual([root._id, reply._id]);
    expect(all[0].isDeleted).toBe(true);
    expect(all[1]).toMatchObject({ message: 'child', isDeleted: false, parentComment: root._id });
    if (ctx.observed) {
      expect(all[0]).toMatchObject({ message: '', user: null });
      // Listed only while a live reply points to it.
      expectMessage(await ctx.owner.send('DELETE /amendments/{amendmentId}', { amendmentId: reply._id }));
      expect(await list(ctx, board.record._id)).toEqual([]);
    }
  });
});

// Notifications (the caller's own): spec routes driven by @-mentions; the deployed service has
// none of these routes (Express HTML 404).

import { expect, it } from 'vitest';
import { z } from 'zod';
import { expectHtmlError, expectJsonError, expectMessage, expectOk, got, listed } from './expect-reply.js';
import { addMember, mkBoard, mkWorkspace } from './fixtures.js';
import { contractSuite, covers, UNKNOWN_ID, type Ctx } from './harness.js';
import { NotificationSchema, parseAs, type Notification } from './schemas.js';
import type { Query } from './client.js';

async function inbox(ctx: Ctx, query: Query = {}): Promise<Notification[]> {
  return listed(await ctx.other.send('GET /notifications', {}, { query }), 'notifications', NotificationSchema);
}

async function unread(ctx: Ctx): Promise<number> {
  const body = expectOk(await ctx.other.send('GET /notifications/unread-count'));
  return parseAs(z.looseObject({ count: z.number() }), body, 'GET /notifications/unread-count').count;
}

/** The owner mentions `other` in `n` amendments; answers the ids of the new notifications, newest first. */
async function mention(ctx: Ctx, n: number): Promise<Notification[]> {
  const ws = await mkWorkspace(ctx);
  await addMember(ctx, ws, ctx.other, 'member');
  const board = await mkBoard(ctx, ws);
  const before = new Set((await inbox(ctx)).map((x) => x._id));
  for (let i = 0; i < n; i += 1) {
    const r = await ctx.owner.send('POST /amendments/{recordId}', { recordId: board.record._id }, {
      body: { message: `@other look ${i}`, mentions: [ctx.other.id] },
    });
    expectOk(r);
  }
  return ctx.eventually(async () => {
    const fresh = (await inbox(ctx)).filter((x) => !before.has(x._id));
    expect(fresh.filter((x) => x.type === 'mention')).toHaveLength(n);
    return fresh;
  });
}

contractSuite('notifications', (ctx) => {
  if (ctx.observed) {
    it('observed: the notification routes do not exist (HTML 404)', async () => {
      covers('GET /notifications', 'GET /notifications/unread-count', 'PATCH /notifications/{id}/read', 'POST /notifications/read-all', 'DELETE /notifications/{id}');
      expectHtmlError(await ctx.owner.send('GET /notifications'), 404);
      expectHtmlError(await ctx.owner.send('GET /notifications/unread-count'), 404);
      expectHtmlError(await ctx.owner.send('PATCH /notifications/{id}/read', { id: UNKNOWN_ID }), 404);
      expectHtmlError(await ctx.owner.send('POST /notifications/read-all'), 404);
      expectHtmlError(await ctx.owner.send('DELETE /notifications/{id}', { id: UNKNOWN_ID }), 404);
    });
    return;
  }

  it('a mention notifies the mentioned user; GET /notifications lists newest first with filters', async () => {
    covers('GET /notifications', 'POST /amendments/{recordId}');
    const made = await mention(ctx, 2);
    expect(made.every((x) => x.user === ctx.other.id && !x.isRead && x.readAt === null)).toBe(true);
    const all = await inbox(ctx);
    const times = all.map((x) => Date.parse(x.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(await inbox(ctx, { limit: 1 })).toHaveLength(1);
    for (const x of await inbox(ctx, { type: 'mention' })) expect(x.type).toBe('mention');
    for (const x of await inbox(ctx, { isRead: false })) expect(x.isRead).toBe(false);
    const ownerInbox = listed(await ctx.owner.send('GET /notifications'), 'notifications', NotificationSchema);
    expect(ownerInbox.map((x) => x._id)).not.toContain(made[0]._id);
  });

  it('GET /notifications/unread-count and PATCH /notifications/{id}/read', async () => {
    covers('GET /notifications/unread-count', 'PATCH /notifications/{id}/read');
    const [first] = await mention(ctx, 1);
    const before = await unread(ctx);
    expect(before).toBeGreaterThanOrEqual(1);
    const read = got(await ctx.other.send('PATCH /notifications/{id}/read', { id: first._id }), 'notification', NotificationSchema);
    expect(read._id).toBe(first._id);
    expect(read.isRead).toBe(true);
    expect(read.readAt).not.toBeNull();
    expect(await unread(ctx)).toBe(before - 1);
    expect((await inbox(ctx, { isRead: false })).map((x) => x._id)).not.toContain(first._id);
  });

  it('POST /notifications/read-all reads every notification of the caller', async () => {
    covers('POST /notifications/read-all');
    await mention(ctx, 2);
    expectMessage(await ctx.other.send('POST /notifications/read-all'));
    expect(await unread(ctx)).toBe(0);
    expect(await inbox(ctx, { isRead: false })).toEqual([]);
  });

  it('DELETE /notifications/{id} removes it', async () => {
    covers('DELETE /notifications/{id}');
    const [first] = await mention(ctx, 1);
    expectMessage(await ctx.other.send('DELETE /notifications/{id}', { id: first._id }));
    expect((await inbox(ctx)).map((x) => x._id)).not.toContain(first._id);
  });

  it('unknown ids, and other people\'s notifications, are 404', async () => {
    covers('PATCH /notifications/{id}/read', 'DELETE /notifications/{id}');
    const [theirs] = await mention(ctx, 1);
    expectJsonError(await ctx.other.send('PATCH /notifications/{id}/read', { id: UNKNOWN_ID }), 404);
    expectJsonError(await ctx.other.send('DELETE /notifications/{id}', { id: UNKNOWN_ID }), 404);
    expectJsonError(await ctx.owner.send('PATCH /notifications/{id}/read', { id: theirs._id }), 404);
    expectJsonError(await ctx.owner.send('DELETE /notifications/{id}', { id: theirs._id }), 404);
    expect((await inbox(ctx)).find((x) => x._id === theirs._id)?.isRead).toBe(false);
  });
});

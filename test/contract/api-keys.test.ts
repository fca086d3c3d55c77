// API keys: reading the caller's PIT, rotation, and the 20-minute generation window (spec only).
// Live, rotation kills a key: it runs only on a throwaway account's key in WBSYNC_LIVE_ROTATE_KEY.

import { expect, it } from 'vitest';
import { Actor } from './client.js';
import { expectJsonError, expectOk, type Body } from './expect-reply.js';
import { contractSuite, covers, type Ctx } from './harness.js';
import { TimestampSchema } from './schemas.js';

const MINUTE = 60_000;
const ROTATE_KEY = process.env.WBSYNC_LIVE_ROTATE_KEY;

/** The user whose key the rotation tests may burn: users[2] on the emulator. */
let liveRotator: Actor | undefined;
function rotator(ctx: Ctx): Actor {
  if (ctx.isEmulator) return ctx.third;
  liveRotator ??= new Actor(ctx.owner.baseUrl, '', '', String(ROTATE_KEY), 'rotation user');
  return liveRotator;
}

function expectKeyShape(ctx: Ctx, body: Body): string {
  const key = body.apiKey;
  expect(typeof key).toBe('string');
  if (ctx.observed) expect(key).toMatch(/^crm_[0-9a-f]{64}$/);
  return String(key);
}

contractSuite('api keys', (ctx) => {
  it('GET /api-key answers the caller\'s own key (spec: with nextAllowedAt; observed: {apiKey} only)', async () => {
    covers('GET /api-key');
    const body = expectOk(await ctx.owner.send('GET /api-key'));
    expect(body.apiKey).toBe(ctx.owner.key);
    if (ctx.spec) {
      expect(body).toHaveProperty('nextAllowedAt');
      if (body.nextAllowedAt !== null) TimestampSchema.parse(body.nextAllowedAt);
    } else {
      expect(body).not.toHaveProperty('nextAllowedAt');
    }
  });

  it('GET /api-key without a key is 401', async () => {
    covers('GET /api-key');
    expectJsonError(await ctx.owner.send('GET /api-key', {}, { key: null }), 401);
  });

  if (ctx.isEmulator || ROTATE_KEY) {
    it('POST /api-key/generate rotates: the new key works, the old one is refused at once', async () => {
      covers('POST /api-key/generate', 'GET /api-key');
      const user = rotator(ctx);
      if (ctx.isEmulator) ctx.em.clock.advance(21 * MINUTE); // clear of any window since the key was made
      const oldKey = user.key;
      const before = ctx.isEmulator ? ctx.em.clock.now().getTime() : Date.now();
      const body = expectOk(await user.send('POST /api-key/generate'));
      const newKey = expectKeyShape(ctx, body);
      expect(newKey).not.toBe(oldKey);
      if (ctx.spec) {
        const next = Date.parse(TimestampSchema.parse(body.nextAllowedAt));
        expect(next - before).toBeGreaterThanOrEqual(20 * MINUTE);
        expect(next - before).toBeLessThanOrEqual(20 * MINUTE + 1_000);
      } else {
        expect(typeof body.message).toBe('string');
        expect(body).not.toHaveProperty('nextAllowedAt');
      }
      user.key = newKey;
      const stale = await user.send('GET /workspaces', {}, { key: oldKey });
      expectJsonError(stale, 401, ctx.observed ? 'Invalid API key' : undefined);
      expectOk(await user.send('GET /workspaces'));
      expect(expectOk(await user.send('GET /api-key')).apiKey).toBe(newKey);
    });

    it('a second generation inside 20 minutes: spec 429 with nextAllowedAt; observed has no window', async () => {
      covers('POST /api-key/generate');
      const user = rotator(ctx);
      if (ctx.isEmulator) ctx.em.clock.advance(21 * MINUTE);
      const first = expectOk(await user.send('POST /api-key/generate'));
      const firstKey = expectKeyShape(ctx, first);
      user.key = firstKey;
      const second = await user.send('POST /api-key/generate');
      if (ctx.spec) {
        expectJsonError(second, 429);
        expect((second.json as Body).nextAllowedAt).toBe(first.nextAllowedAt);
        // The refused call rotated nothing.
        expectOk(await user.send('GET /workspaces'));
        ctx.em.clock.advance(19 * MINUTE);
        expectJsonError(await user.send('POST /api-key/generate'), 429);
        ctx.em.clock.advance(2 * MINUTE);
        const third = expectOk(await user.send('POST /api-key/generate'));
        user.key = expectKeyShape(ctx, third);
        expectJsonError(await user.send('GET /workspaces', {}, { key: firstKey }), 401);
      } else {
        const body = expectOk(second);
        expect(body).not.toHaveProperty('nextAllowedAt');
        user.key = expectKeyShape(ctx, body);
        expect(user.key).not.toBe(firstKey);
        expectJsonError(await user.send('GET /workspaces', {}, { key: firstKey }), 401, 'Invalid API key');
      }
      expectOk(await user.send('GET /workspaces'));
    });
  }
});

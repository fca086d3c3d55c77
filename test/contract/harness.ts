// The dialect loop: every contract file runs against the emulator's `spec` and `observed` dialects
// and, when WBSYNC_LIVE_URL and a key (file) are set, against a live service with `observed`
// expectations. Tests build their fixtures through the API so the same code runs live.

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { Dialect, RunningEmulator } from '../../src/emulator/types.js';
import { Actor, describeReply } from './client.js';
import { ABSENT_IN_OBSERVED, ENDPOINT_SET, type RouteName } from './endpoints.js';
import { liveSettings } from '../helpers/service-target.js';

export type { Dialect };

export interface TargetSpec {
  label: string;
  dialect: Dialect;
  live: boolean;
}

// The one switch the randomized suites use too (test/helpers/service-target.ts): WBSYNC_LIVE_URL
// with WBSYNC_LIVE_KEY_FILE (or WBSYNC_LIVE_KEY), WBSYNC_LIVE_KEY2_FILE (or WBSYNC_LIVE_KEY2).
const LIVE = liveSettings();
const LIVE_URL = LIVE?.baseUrl;
const LIVE_KEY = LIVE?.apiKey;
const LIVE_KEY2 = LIVE?.apiKey2 ?? undefined;

export function targets(): TargetSpec[] {
  const list: TargetSpec[] = [
    { label: 'emulator spec', dialect: 'spec', live: false },
    { label: 'emulator observed', dialect: 'observed', live: false },
  ];
  if (LIVE_URL && LIVE_KEY) list.push({ label: 'live (observed)', dialect: 'observed', live: true });
  return list;
}

/** A stall long enough to measure, short enough to keep the suite fast. */
export const DB_DOWN_STALL_MS = 50;

/** Well-formed (24 hex digits) but unknown id. */
export const UNKNOWN_ID = '64b0f0f0f0f0f0f0f0f0f0f0';
export const MALFORMED_ID = 'not-an-id';

// ---- covers(): what each test declares it exercises -------------------------------------------

let declared: RouteName[] = [];

/**
 * Declares the spec endpoints a test exercises. coverage.test.ts finds these string literals
 * statically; on the emulator the request log must show each route was really hit.
 */
export function covers(...routes: RouteName[]): void {
  for (const r of routes) {
    if (!ENDPOINT_SET.has(r)) throw new Error(`covers(): '${r}' is not an endpoint of the spec`);
    declared.push(r);
  }
}

// ---- the per-target context -------------------------------------------------------------------

export class Ctx {
  private emulator: RunningEmulator | undefined;
  private actors: Actor[] = [];
  private fixtureWs: string | undefined;
  private owned: Array<{ id: string; actor: Actor }> = [];

  constructor(readonly target: TargetSpec) {}

  get dialect(): Dialect {
    return this.target.dialect;
  }
  get spec(): boolean {
    return this.target.dialect === 'spec';
  }
  get observed(): boolean {
    return this.target.dialect === 'observed';
  }
  get live(): boolean {
    return this.target.live;
  }
  /** Whether a second signed-in user exists (always on the emulator; live with WBSYNC_LIVE_KEY2). */
  get hasOther(): boolean {
    return !this.target.live || Boolean(LIVE_KEY2);
  }
  get isEmulator(): boolean {
    return !this.target.live;
  }
  get em(): RunningEmulator {
    if (!this.emulator) throw new Error('emulator-only helper used on a live target');
    return this.emulator;
  }
  get owner(): Actor {
    return this.need(0, 'owner');
  }
  /** A second user; a member of nothing until a test adds them. */
  get other(): Actor {
    return this.need(1, 'second user');
  }
  /** A third user (emulator only); never added anywhere by the shared fixtures. */
  get third(): Actor {
    return this.need(2, 'third user');
  }
  /** The fixture workspace of this target, owned by `owner`; `other` is not a member. */
  get ws(): string {
    if (!this.fixtureWs) throw new Error('fixture workspace not created');
    return this.fixtureWs;
  }

  private need(i: number, what: string): Actor {
    const a = this.actors[i];
    if (!a) throw new Error(`${what} not available on ${this.target.label}`);
    return a;
  }

  async start(): Promise<void> {
    if (this.target.live) {
      const base = String(LIVE_URL);
      const owner = new Actor(base, '', '', String(LIVE_KEY), 'owner');
      this.actors = [await this.identify(owner)];
      if (LIVE_KEY2) this.actors.push(await this.identify(new Actor(base, '', '', LIVE_KEY2, 'other')));
    } else {
      const em = await startEmulator({ dialect: this.target.dialect, seed: 'none', dbDownStallMs: DB_DOWN_STALL_MS });
      this.emulator = em;
      this.actors = em.users.map((u, i) => new Actor(em.baseUrl, u.id, u.email, u.apiKey, `users[${i}]`));
    }
    this.fixtureWs = await this.createWorkspace(this.owner, `wbsync contract ${this.target.label} ${Date.now()}`);
  }

  async stop(): Promise<void> {
    const problems: string[] = [];
    if (this.emulator) this.emulator.faults.setDatabaseDown(false);
    for (const { id, actor } of this.owned.reverse()) {
      const r = await actor.send('DELETE /workspaces/{id}', { id });
      if (r.status >= 300) problems.push(`cleanup of workspace ${id}: ${describeReply(r)}`);
    }
    this.owned = [];
    if (this.emulator) await this.emulator.stop();
    if (problems.length > 0) throw new Error(problems.join('\n'));
  }

  /** Creates a workspace that is deleted when the target stops. */
  async createWorkspace(actor: Actor, name: string): Promise<string> {
    const r = await actor.send('POST /workspaces', {}, { body: { name } });
    expect(r.status, describeReply(r)).toBeLessThan(300);
    const body = r.json as { workspace?: { _id?: unknown } } | undefined;
    const id = body?.workspace?._id;
    if (typeof id !== 'string') throw new Error(`POST /workspaces gave no workspace id: ${describeReply(r)}`);
    this.owned.push({ id, actor });
    return id;
  }

  /** A workspace the test created by hand, to delete when the target stops. */
  trackWorkspace(id: string, actor: Actor): void {
    this.owned.push({ id, actor });
  }

  /** The test deleted this workspace itself. */
  forgetWorkspace(id: string): void {
    this.owned = this.owned.filter((o) => o.id !== id);
  }

  /** Learns a live key's user id and email from a throwaway workspace's member list. */
  private async identify(actor: Actor): Promise<Actor> {
    const name = `wbsync contract identity ${Date.now()}`;
    const created = await actor.send('POST /workspaces', {}, { body: { name } });
    if (created.status >= 300) throw new Error(`live: cannot create a workspace: ${describeReply(created)}`);
    const ws = (created.json as { workspace: { _id: string } }).workspace._id;
    const members = await actor.send('GET /workspace-members/{workspaceId}', { workspaceId: ws });
    const list = (members.json as { members: Array<{ role: string; user: { _id: string; email: string } }> }).members;
    const me = list.find((m) => m.role === 'owner');
    await actor.send('DELETE /workspaces/{id}', { id: ws });
    if (!me) throw new Error(`live: no owner in a fresh workspace: ${describeReply(members)}`);
    return new Actor(actor.baseUrl, me.user._id, me.user.email, actor.key, actor.label);
  }

  /** Let asynchronous automation runs finish (observed runs them after the response). */
  async settle(): Promise<void> {
    if (this.emulator) await this.emulator.idle();
  }

  /** Retries an assertion until it holds (live automations run asynchronously). */
  async eventually<T>(check: () => Promise<T>, timeoutMs = this.live ? 10_000 : 1_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await this.settle();
      try {
        return await check();
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, this.live ? 250 : 20));
      }
    }
  }

  beginTest(): void {
    declared = [];
    if (this.emulator) this.emulator.requestLog.clear();
  }

  endTest(): void {
    const em = this.emulator;
    if (!em) return;
    em.faults.setDatabaseDown(false);
    em.clock.unfreeze();
    const counts = em.requestLog.counts();
    const missed = [...new Set(declared)]
      .filter((r) => !(this.observed && ABSENT_IN_OBSERVED.has(r)))
      .filter((r) => !(counts[r] > 0));
    declared = [];
    expect(missed, `declared by covers() but never hit (request log: ${JSON.stringify(counts)})`).toEqual([]);
  }
}

/**
 * Registers `body` once per target. `body` runs at collection time with a context whose
 * actors and fixture workspace exist once the tests run.
 */
export function contractSuite(title: string, body: (ctx: Ctx) => void): void {
  describe.each(targets())(`${title} [$label]`, (target) => {
    const ctx = new Ctx(target);
    beforeAll(() => ctx.start());
    afterAll(() => ctx.stop());
    beforeEach(() => ctx.beginTest());
    afterEach(() => ctx.endTest());
    body(ctx);
  });
}

// Sign-ins of the token-protected console: a session is a random id the server keeps with its
// expiry (the cookie carries only the id, never the token), forgotten on expiry, sign-out or
// restart. And the limit on sign-in attempts: a few wrong tokens per address per minute, then 429.

import { randomBytes } from 'node:crypto';

export const SESSION_COOKIE = 'wbsync_ui';

export class SessionStore {
  private readonly live = new Map<string, number>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly max = 10_000,
  ) {}

  /** A new session id, valid for the TTL. */
  open(): string {
    this.sweep();
    if (this.live.size >= this.max) this.live.delete(this.live.keys().next().value!);
    const id = randomBytes(32).toString('hex');
    this.live.set(id, this.now() + this.ttlMs);
    return id;
  }

  /** True while the session exists and has not expired. */
  isLive(id: string | undefined): boolean {
    if (id === undefined || !/^[0-9a-f]{64}$/.test(id)) return false;
    const expires = this.live.get(id);
    if (expires === undefined) return false;
    if (expires <= this.now()) {
      this.live.delete(id);
      return false;
    }
    return true;
  }

  close(id: string | undefined): void {
    if (id !== undefined) this.live.delete(id);
  }

  get size(): number {
    this.sweep();
    return this.live.size;
  }

  private sweep(): void {
    const t = this.now();
    for (const [id, exp] of this.live) if (exp <= t) this.live.delete(id);
  }
}

export function sessionCookie(id: string, basePath: string, ttlMs: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${id}; Path=${basePath}/; Max-Age=${Math.floor(ttlMs / 1000)}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

export function clearedCookie(basePath: string, secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=${basePath}/; Max-Age=0; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/**
 * Failed sign-ins per client address in a sliding window, and in all (so many addresses — or a
 * proxy in front, where every client is one address — cannot try more than `total` per window).
 */
export class LoginLimiter {
  private readonly failures = new Map<string, number[]>();
  private all: number[] = [];

  constructor(
    private readonly perAddress = 5,
    private readonly total = 30,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Seconds until this address may try again, or 0. `addressOnly`: the cap over all addresses does
   * not apply (bearer requests: a flood from elsewhere must not lock out scripts holding the token).
   */
  retryAfter(address: string, addressOnly = false): number {
    const t = this.now();
    const mine = this.recent(this.failures.get(address) ?? [], t);
    this.all = this.recent(this.all, t);
    const blockers = [mine.length >= this.perAddress ? mine : null, !addressOnly && this.all.length >= this.total ? this.all : null].filter((x): x is number[] => x !== null);
    if (!blockers.length) return 0;
    return Math.max(1, Math.ceil(Math.max(...blockers.map((b) => b[b.length - (b === mine ? this.perAddress : this.total)]! + this.windowMs - t)) / 1000));
  }

  fail(address: string): void {
    const t = this.now();
    const mine = this.recent(this.failures.get(address) ?? [], t);
    mine.push(t);
    this.failures.set(address, mine);
    this.all.push(t);
    if (this.failures.size > 10_000) for (const [a, f] of this.failures) if (!this.recent(f, t).length) this.failures.delete(a);
  }

  succeed(address: string): void {
    this.failures.delete(address);
  }

  private recent(list: number[], t: number): number[] {
    const from = t - this.windowMs;
    let i = 0;
    while (i < list.length && list[i]! <= from) i++;
    return i ? list.slice(i) : list;
  }
}

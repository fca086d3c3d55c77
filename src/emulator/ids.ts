// Deterministic randomness: ids, keys and seed choices all come from one seeded generator so a
// given randomSeed always rebuilds the same world (tests can hard-code ids).

/** mulberry32: tiny, fast, good enough for test data (not for secrets). */
export class Prng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0 || 0x9e3779b9;
  }
  next32(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  /** Float in [0, 1). */
  next(): number {
    return this.next32() / 4294967296;
  }
  int(minIncl: number, maxIncl: number): number {
    return minIncl + Math.floor(this.next() * (maxIncl - minIncl + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  hex(chars: number): string {
    let out = '';
    while (out.length < chars) out += this.next32().toString(16).padStart(8, '0');
    return out.slice(0, chars);
  }
}

/** Makes 24-hex ids (the shape of MongoDB ObjectIds) that never repeat within one generator. */
export class IdGenerator {
  private counter = 0;
  private readonly prng: Prng;
  constructor(seed: number) {
    this.prng = new Prng(seed ^ 0x1d5eed);
  }
  /** 16 random hex + an 8-hex counter: unique by construction, still opaque-looking. */
  id(): string {
    this.counter += 1;
    return this.prng.hex(16) + this.counter.toString(16).padStart(8, '0');
  }
  /** Personal Integration Token in the deployed service's format: crm_ + 64 hex. */
  apiKey(): string {
    return 'crm_' + this.prng.hex(64);
  }
  sessionToken(): string {
    return 'sess_' + this.prng.hex(48);
  }
}

export const OBJECT_ID_RE = /^[0-9a-f]{24}$/i;

export function isObjectId(value: unknown): value is string {
  return typeof value === 'string' && OBJECT_ID_RE.test(value);
}

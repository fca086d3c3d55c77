import { describe, expect, it } from 'vitest';
import { computeBackoff } from './backoff.js';

describe('computeBackoff (full jitter)', () => {
  it('is uniform below min(cap, base * 2^attempt)', () => {
    const opts = { baseMs: 100, maxMs: 1000 };
    expect(computeBackoff(0, { ...opts, random: () => 0.999 })).toBe(99);
    expect(computeBackoff(2, { ...opts, random: () => 0.5 })).toBe(200);
    expect(computeBackoff(10, { ...opts, random: () => 0.999 })).toBe(999);
    expect(computeBackoff(3, { ...opts, random: () => 0 })).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { copyOrder, copyStep } from './copy-hold.js';

const MIN = 60_000;

describe('copyStep: the periodic fleet copy of one tenant at one round', () => {
  it('not due: nothing, running or not', () => {
    expect(copyStep({ running: false, lastCopyMs: 1_000 * MIN }, 1_000 * MIN + 59 * MIN, 60 * MIN)).toBe('not-due');
    expect(copyStep({ running: true, lastCopyMs: 1_000 * MIN }, 1_000 * MIN + 59 * MIN, 60 * MIN)).toBe('not-due');
  });

  it('due while a job runs: its next job is held; due and idle: copied, held while it copies', () => {
    expect(copyStep({ running: true, lastCopyMs: 0 }, 10 * MIN, 5 * MIN)).toBe('hold');
    expect(copyStep({ running: false, lastCopyMs: 0 }, 10 * MIN, 5 * MIN)).toBe('copy-held');
    expect(copyStep({ running: true, lastCopyMs: 5 * MIN }, 10 * MIN, 5 * MIN)).toBe('hold'); // exactly everyMinutes old
  });

  it('after a failed copy: never held until holdAgainAt; copied when idle meanwhile, unheld', () => {
    const t = { lastCopyMs: 0, holdAgainAtMs: 20 * MIN };
    expect(copyStep({ ...t, running: true }, 19 * MIN, 5 * MIN)).toBe('not-due');
    expect(copyStep({ ...t, running: false }, 19 * MIN, 5 * MIN)).toBe('copy');
    expect(copyStep({ ...t, running: true }, 20 * MIN, 5 * MIN)).toBe('hold');
    expect(copyStep({ ...t, running: false }, 20 * MIN, 5 * MIN)).toBe('copy-held');
  });

  it('everyMinutes 0: never due, never held', () => {
    expect(copyStep({ running: true, lastCopyMs: 0 }, 10 * MIN, 0)).toBe('not-due');
    expect(copyStep({ running: false, lastCopyMs: 0 }, 10 * MIN, 0)).toBe('not-due');
  });
});

describe('copyOrder', () => {
  it('held tenants first, otherwise in the order given', () => {
    const order = copyOrder([
      { tenant: 'a', held: false },
      { tenant: 'b', held: true },
      { tenant: 'c', held: false },
      { tenant: 'd', held: true },
    ]);
    expect(order.map((t) => t.tenant)).toEqual(['b', 'd', 'a', 'c']);
  });
});

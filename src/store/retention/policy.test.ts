import { describe, expect, it } from 'vitest';
import { applyPolicy, checkPolicy, durationBefore, parseDuration, type SnapshotStamp } from './policy.js';

/** One snapshot every `stepHours` hours going back from `end`, ids growing with time. */
function series(n: number, stepHours: number, end = '2026-11-25T12:00:00.000Z'): SnapshotStamp[] {
  const t = Date.parse(end);
  return Array.from({ length: n }, (_, i) => ({ id: i + 1, at: new Date(t - (n - 1 - i) * stepHours * 3_600_000).toISOString() }));
}
const kept = (v: ReturnType<typeof applyPolicy>): number[] => v.filter((x) => x.keep).map((x) => x.id).sort((a, b) => a - b);
const NOW = new Date('2026-11-25T12:30:00.000Z');

describe('retention policy (restic semantics)', () => {
  it('--keep-last N keeps the N newest', () => {
    expect(kept(applyPolicy(series(10, 1), { keepLast: 3 }, NOW))).toEqual([8, 9, 10]);
  });

  it('--keep-hourly keeps the newest snapshot of each of the N newest hours that hold one', () => {
    // four passes an hour (every 15 minutes) for 3 hours
    const snaps = series(12, 0.25);
    const v = applyPolicy(snaps, { keepHourly: 2 }, NOW);
    // the newest hour's newest (12) and the hour before's newest
    const prevHour = snaps.filter((s) => s.at.slice(0, 13) < snaps[11]!.at.slice(0, 13)).at(-1)!.id;
    expect(kept(v)).toEqual([prevHour, 12]);
  });

  it('--keep-daily / weekly / monthly / yearly bucket by UTC calendar (ISO weeks)', () => {
    const daily = series(30, 24); // one a day for 30 days
    expect(kept(applyPolicy(daily, { keepDaily: 7 }, NOW))).toEqual([24, 25, 26, 27, 28, 29, 30]);
    const weeks = kept(applyPolicy(daily, { keepWeekly: 2 }, NOW));
    expect(weeks).toHaveLength(2);
    expect(weeks).toContain(30); // the newest is always in the newest bucket
    // 2026-11-25 is a Wednesday: the week before ends on Sunday 2026-11-22
    const sunday = daily.find((s) => s.at.startsWith('2026-11-22'))!.id;
    expect(weeks).toContain(sunday);
    const months = kept(applyPolicy(series(400, 24), { keepMonthly: 3, keepYearly: 2 }, NOW));
    // month ends of October and September, the newest, and the last of 2025
    expect(months).toHaveLength(4);
  });

  it('rules combine: a snapshot kept by any rule is kept, with every reason', () => {
    const v = applyPolicy(series(10, 24), { keepLast: 1, keepDaily: 2 }, NOW);
    expect(v.find((x) => x.id === 10)!.reasons).toEqual(['last', 'daily']);
    expect(v.find((x) => x.id === 9)!.reasons).toEqual(['daily']);
    expect(v.find((x) => x.id === 1)).toMatchObject({ keep: false, reasons: [] });
  });

  it('--keep-within keeps everything taken within DURATION before now', () => {
    const snaps = series(10, 24); // last one at 12:00 on the 25th
    expect(kept(applyPolicy(snaps, { keepWithin: '3d' }, NOW))).toEqual([8, 9, 10]);
    expect(kept(applyPolicy(snaps, { keepWithin: '2d12h' }, NOW))).toEqual([8, 9, 10]);
    expect(kept(applyPolicy(snaps, { keepWithin: '1h' }, NOW))).toEqual([10]);
  });

  it('durations: restic syntax, calendar-aware years and months', () => {
    expect(parseDuration('1y2m3d4h')).toEqual({ years: 1, months: 2, days: 3, hours: 4 });
    expect(durationBefore(new Date('2026-03-31T00:00:00Z'), '1m').toISOString()).toBe('2026-03-03T00:00:00.000Z'); // Feb has 28 days
    expect(() => parseDuration('3 weeks')).toThrow(/not a duration: '3 weeks'/);
    expect(() => parseDuration('')).toThrow(/not a duration/);
  });

  it('should error and not forget anything if the policy is empty or a count is not a whole number', () => {
    expect(() => checkPolicy({})).toThrow(/empty retention policy/);
    expect(() => checkPolicy({ keepDaily: -1 })).toThrow(/--keep-daily wants a whole number/);
    expect(() => checkPolicy({ keepLast: 1.5 })).toThrow(/--keep-last/);
    expect(() => checkPolicy({ keepWithin: 'soon' })).toThrow(/not a duration/);
    expect(() => checkPolicy({ keepLast: 0, keepWithin: '1d' })).not.toThrow();
  });
});

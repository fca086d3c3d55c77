import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../config/schema.js';
import { scheduleView } from './console-schedule.js';
import { nextCronRun } from './cron-interval.js';

describe('the next pass the console shows', () => {
  it('should compute the next run of a 5-field cron (minutes)', () => {
    const before = Date.now();
    const next = nextCronRun('*/5 * * * *');
    expect(next).not.toBeNull();
    const t = next!.getTime();
    expect(t).toBeGreaterThan(before);
    expect(t - before).toBeLessThanOrEqual(5 * 60_000);
    expect(next!.getUTCSeconds()).toBe(0);
    expect(next!.getMinutes() % 5).toBe(0);
  });

  it('should compute the next run of a 6-field cron (seconds)', () => {
    const before = Date.now();
    const next = nextCronRun('*/20 * * * * *');
    expect(next).not.toBeNull();
    expect(next!.getTime()).toBeGreaterThan(before - 1000);
    expect(next!.getTime() - before).toBeLessThanOrEqual(20_000);
    expect(next!.getSeconds() % 20).toBe(0);
  });

  it('should pick the earlier of the incremental and the full schedule, and say which', () => {
    // a full pass at 03:00 every day; incremental every 10 seconds: the incremental comes first
    const config = ConfigSchema.parse({ db: '/tmp/x.db', schedule: { incremental: '*/10 * * * * *', full: '0 3 * * *' } });
    const view = scheduleView(config).nextPass();
    expect(view).not.toBeNull();
    expect(view!.kind).toBe('incremental');
    expect(Date.parse(view!.at) - Date.now()).toBeLessThanOrEqual(10_000);
    // and the other way round: the full every minute, incremental once a year
    const other = ConfigSchema.parse({ db: '/tmp/x.db', schedule: { incremental: '0 0 1 1 *', full: '* * * * *' } });
    const v2 = scheduleView(other).nextPass();
    expect(v2?.kind).toBe('full');
    expect(Date.parse(v2!.at) - Date.now()).toBeLessThanOrEqual(60_000);
  });
});

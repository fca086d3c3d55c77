import { describe, expect, it } from 'vitest';
import { createProgressLine, formatProgress, formatRestoreProgress } from './progress.js';

const P = { modulesDone: 2, modulesTotal: 8, records: 1000, requests: 1234, retries: 3, elapsedMs: 4000 };

describe('progress line', () => {
  it('shows modules, records/s, requests, retries and an ETA', () => {
    expect(formatProgress(P)).toBe('modules 2/8 · 1000 records (250/s) · 1234 requests · 3 retries · ETA 12s');
    expect(formatProgress({ ...P, modulesDone: 8 })).not.toContain('ETA');
  });

  it('updates in place on a terminal, at most every 100 ms, and clears itself', () => {
    let out = '';
    let t = 0;
    const line = createProgressLine({ write: (s) => void (out += s), isTTY: true }, true, () => t);
    line.update(P);
    t = 50;
    line.update({ ...P, records: 1100 });
    t = 200;
    line.update({ ...P, records: 1200 });
    line.done();
    expect(out.split('\r\x1b[K').filter(Boolean)).toEqual([formatProgress(P), formatProgress({ ...P, records: 1200 })]);
    expect(out.endsWith('\r\x1b[K')).toBe(true);
  });

  it('stays silent when stderr is not a terminal or under --json', () => {
    let out = '';
    createProgressLine({ write: (s) => void (out += s), isTTY: false }, true).update(P);
    createProgressLine({ write: (s) => void (out += s), isTTY: true }, false).update(P);
    expect(out).toBe('');
  });

  it('formats restore progress with an ETA', () => {
    expect(formatRestoreProgress(50, 200, 5000)).toBe('restore: 50/200 writes (10/s) · ETA 15s');
    expect(formatRestoreProgress(200, 200, 5000)).toBe('restore: 200/200 writes (40/s)');
  });
});

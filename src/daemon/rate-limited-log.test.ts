import { describe, expect, it } from 'vitest';
import { createRateLimitedLog } from './rate-limited-log.js';

function sink() {
  const lines: Array<{ level: string; fields: Record<string, unknown>; msg: string }> = [];
  const at = (level: string) => (fields: Record<string, unknown>, msg: string) => lines.push({ level, fields, msg });
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}

describe('rate-limited log', () => {
  it('should log the same message at most once per window, then with the count of suppressed repeats', () => {
    let t = 0;
    const s = sink();
    const log = createRateLimitedLog(s, { windowMs: 60_000, now: () => t });
    for (let i = 0; i < 100; i++) {
      log.log('error', { i }, 'pass failed');
      t += 500; // 100 repeats over 50 s
    }
    expect(s.lines).toHaveLength(1);
    t = 60_001;
    log.log('error', { i: 100 }, 'pass failed');
    expect(s.lines).toHaveLength(2);
    expect(s.lines[1].fields).toEqual({ i: 100, suppressed: 99 });
  });

  it('should keep different keys apart', () => {
    const s = sink();
    const log = createRateLimitedLog(s, { now: () => 0 });
    log.log('error', {}, 'pass failed', 'a');
    log.log('error', {}, 'pass failed', 'b');
    log.log('error', {}, 'pass failed', 'a');
    expect(s.lines).toHaveLength(2);
  });

  it('should report pending suppressed counts on flush', () => {
    const s = sink();
    const log = createRateLimitedLog(s, { now: () => 0 });
    log.log('warn', { x: 1 }, 'request retry');
    log.log('warn', { x: 2 }, 'request retry');
    log.log('warn', { x: 3 }, 'request retry');
    log.flush();
    expect(s.lines.map((l) => [l.level, l.fields])).toEqual([
      ['warn', { x: 1 }],
      ['warn', { x: 3, suppressed: 2 }],
    ]);
    log.flush();
    expect(s.lines).toHaveLength(2);
  });

  it('should stay bounded with many distinct keys', () => {
    const s = sink();
    let t = 0;
    const log = createRateLimitedLog(s, { now: () => t });
    for (let i = 0; i < 2000; i++) {
      t += 1;
      log.log('error', {}, `error ${i}`);
    }
    expect(s.lines).toHaveLength(2000);
  });
});

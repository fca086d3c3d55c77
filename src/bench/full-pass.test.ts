import { describe, expect, it } from 'vitest';
import { judge, rigFloor, type Run } from './full-pass.js';

describe('full-pass figures', () => {
  it('judges a pass against requests × latency ÷ concurrency', () => {
    const j = judge({ requests: 3200, retries: 0, wallMs: 3000, counts: { record: 300, cell: 600 } }, 32, 3100, 20);
    expect(j.latencyBoundMs).toBe(2000);
    expect(j.wallOverBound).toBe(1.5);
    expect(j.requestsOverMinimum).toBe(100);
    expect(j.recordsPerSec).toBe(100);
  });

  it("gives the rig floor's median and spread over its runs, each against its own requests", () => {
    const run = (rigRequests: number, rigWallMs: number, load: number): Run => ({ raw: { rigRequests, rigWallMs }, load1Before: load, load1After: load + 0.5 });
    // bounds: 5000 × 20 / 32 = 3125 ms; 4000 × 20 / 32 = 2500 ms
    const f = rigFloor([run(5000, 3750, 1), run(4000, 2750, 0.5), run(5000, 3500, 2)], 20);
    expect(f.runs).toBe(3);
    expect(f.wallOverBound).toEqual({ median: 1.12, min: 1.1, max: 1.2 });
    expect(f.load1).toEqual({ median: 1, min: 0.5, max: 2.5 });
    expect(f.note).toMatch(/concurrency 32/);
  });
});

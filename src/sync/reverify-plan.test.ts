import { describe, expect, it } from 'vitest';
import { planReverification, type PartAge } from './reverify-plan.js';

const H = 3_600_000;
const WINDOW = 6 * H;

function parts(n: number, verifiedAtMs: number, weight = 100): PartAge[] {
  return Array.from({ length: n }, (_, i) => ({ kind: 'module' as const, id: `m${String(i).padStart(2, '0')}`, verifiedAtMs, weight }));
}

/** Runs passes every `everyMs` for `hours`, re-verifying what the plan picks; returns the figures. */
function simulate(all: PartAge[], everyMs: number, hours: number): { maxAgeMs: number; spent: number } {
  const state = all.map((p) => ({ ...p }));
  let maxAgeMs = 0;
  let spent = 0;
  let last: number | null = 0;
  for (let t = everyMs; t <= hours * H; t += everyMs) {
    const plan = planReverification({ parts: state, nowMs: t, lastPassMs: last, windowMs: WINDOW });
    maxAgeMs = Math.max(maxAgeMs, plan.oldestAgeMs);
    for (const c of plan.chosen) {
      const p = state.find((x) => x.id === c.id)!;
      p.verifiedAtMs = t;
      spent += p.weight;
    }
    last = t;
  }
  return { maxAgeMs, spent };
}

describe('planReverification', () => {
  it('should choose nothing right after a full pass', () => {
    const plan = planReverification({ parts: parts(10, 0), nowMs: 60_000, lastPassMs: 0, windowMs: WINDOW });
    expect(plan.chosen).toEqual([]);
    expect(plan.totalWeight).toBe(1000);
    expect(plan.oldestAgeMs).toBe(60_000);
  });

  it('should take the oldest parts first, within a budget that grows with the time since the last re-verification', () => {
    const ps = [...parts(3, 0), { kind: 'workspace' as const, id: 'w', verifiedAtMs: -H, weight: 10 }];
    const plan = planReverification({ parts: ps, nowMs: 3 * H, lastPassMs: 3 * H - 60_000, windowMs: WINDOW });
    // budget = 310 x 3h / 6h = 155: the workspace part (oldest, 10) then one module (100)
    expect(plan.budget).toBe(155);
    expect(plan.chosen.map((p) => p.id)).toEqual(['w', 'm00']);
  });

  it('should take a part that would pass the window by the next pass, whatever the budget', () => {
    const ps = [...parts(1, 0, 10_000), ...parts(1, 5 * H + 59 * 60_000, 10).map((p) => ({ ...p, id: 'young' }))];
    const plan = planReverification({ parts: ps, nowMs: 5 * H + 59 * 60_000 + 1000, lastPassMs: 5 * H + 58 * 60_000, windowMs: WINDOW });
    expect(plan.chosen.map((p) => p.id)).toEqual(['m00']);
  });

  it('should keep every part within the window, spending about one full pass per window', () => {
    // 20 modules of unequal size, a pass every 5 minutes, for four days
    const ps = parts(20, 0).map((p, i) => ({ ...p, weight: 50 + i * 37 }));
    const total = ps.reduce((n, p) => n + p.weight, 0);
    const { maxAgeMs, spent } = simulate(ps, 5 * 60_000, 96);
    expect(maxAgeMs).toBeLessThanOrEqual(WINDOW);
    const windows = 96 / 6;
    expect(spent / (total * windows)).toBeGreaterThan(0.8);
    expect(spent / (total * windows)).toBeLessThan(1.25);
  });

  it('should hold the bound with hourly passes too (the next pass is the deadline)', () => {
    const { maxAgeMs } = simulate(parts(7, 0, 300), H, 48);
    expect(maxAgeMs).toBeLessThanOrEqual(WINDOW);
  });
});

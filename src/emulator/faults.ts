// Fault injection: scripted rules (fail the Nth matching request), a random failure rate, added
// latency and the database-down switch. Decisions are deterministic given the random seed.

import { Prng } from './ids.js';
import type { FaultRule } from './types.js';

export type FaultDecision =
  | { kind: 'none' }
  | { kind: 'status'; status: number }
  | { kind: 'drop' }
  | { kind: 'stall'; ms: number }
  | { kind: 'truncate' };

interface ArmedRule {
  rule: FaultRule;
  seen: number;
}

export class Faults {
  private rules: ArmedRule[] = [];
  latencyMs: number;
  failRate: number;
  databaseDown = false;
  private prng: Prng;

  constructor(
    private readonly seed: number,
    private readonly initialLatency: number,
    private readonly initialFailRate: number,
  ) {
    this.latencyMs = initialLatency;
    this.failRate = initialFailRate;
    this.prng = new Prng(seed ^ 0xfa017);
  }

  add(rule: FaultRule): void {
    this.rules.push({ rule: { ...rule }, seen: 0 });
  }

  clear(): void {
    this.rules = [];
    this.databaseDown = false;
    this.latencyMs = this.initialLatency;
    this.failRate = this.initialFailRate;
    this.prng = new Prng(this.seed ^ 0xfa017);
  }

  decide(method: string, path: string, route: string, isApi: boolean): FaultDecision {
    for (const armed of this.rules) {
      const { rule } = armed;
      if (rule.method && rule.method.toUpperCase() !== method) continue;
      const hit = typeof rule.route === 'string' ? rule.route === route : rule.route.test(path);
      if (!hit) continue;
      armed.seen += 1;
      const nth = rule.nth ?? 1;
      const times = rule.times ?? 1;
      if (armed.seen < nth || armed.seen >= nth + times) continue;
      switch (rule.mode ?? 'status') {
        case 'drop':
          return { kind: 'drop' };
        case 'stall':
          return { kind: 'stall', ms: rule.stallMs ?? 30_000 };
        case 'truncate':
          return { kind: 'truncate' };
        default:
          return { kind: 'status', status: rule.status ?? 500 };
      }
    }
    if (isApi && this.failRate > 0 && this.prng.next() < this.failRate) {
      const r = this.prng.next();
      if (r < 0.4) return { kind: 'status', status: 500 };
      if (r < 0.8) return { kind: 'status', status: 503 };
      return { kind: 'drop' };
    }
    return { kind: 'none' };
  }
}

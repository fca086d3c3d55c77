// Every request the emulator answered, with its route name, for tests and the benchmark.

import type { RequestLog, RequestLogEntry } from './types.js';

export class RequestLogImpl implements RequestLog {
  private list: RequestLogEntry[] = [];
  private perRoute = new Map<string, number>();
  private count = 0;

  /** keep: false counts requests without keeping them. */
  constructor(private readonly keep = true) {}

  add(entry: RequestLogEntry): void {
    this.count++;
    if (this.keep) this.list.push(entry);
    this.perRoute.set(entry.route, (this.perRoute.get(entry.route) ?? 0) + 1);
  }
  entries(): RequestLogEntry[] {
    return this.list.map((e) => ({ ...e }));
  }
  counts(): Record<string, number> {
    return Object.fromEntries(this.perRoute);
  }
  total(): number {
    return this.count;
  }
  clear(): void {
    this.list = [];
    this.count = 0;
    this.perRoute = new Map();
  }
}

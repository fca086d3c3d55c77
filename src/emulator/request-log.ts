// Every request the emulator answered, with its route name, for tests and the benchmark.

import type { RequestLog, RequestLogEntry } from './types.js';

export class RequestLogImpl implements RequestLog {
  private list: RequestLogEntry[] = [];
  private perRoute = new Map<string, number>();

  add(entry: RequestLogEntry): void {
    this.list.push(entry);
    this.perRoute.set(entry.route, (this.perRoute.get(entry.route) ?? 0) + 1);
  }
  entries(): RequestLogEntry[] {
    return this.list.map((e) => ({ ...e }));
  }
  counts(): Record<string, number> {
    return Object.fromEntries(this.perRoute);
  }
  total(): number {
    return this.list.length;
  }
  clear(): void {
    this.list = [];
    this.perRoute = new Map();
  }
}

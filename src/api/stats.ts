// Request bookkeeping shared by the transport (requests, status classes) and the retry
// decorator (retries), so `stats()` counts a retry both as a request and as a retry.

import type { RequestStats } from './port.js';

export type StatusClass = '2xx' | '3xx' | '4xx' | '5xx' | 'network';

/** One finished exchange, for a request-duration histogram: the route template, never an id. */
export interface RequestTiming {
  method: string;
  /** `/records/{collectionId}` */
  route: string;
  statusClass: StatusClass;
  seconds: number;
}

export class StatsRecorder {
  constructor(private readonly onRequest?: (r: RequestTiming) => void) {}

  private requests = 0;
  private retries = 0;
  private readonly byClass = new Map<StatusClass, number>();

  recordRequest(outcome: number | 'network', timing?: { method: string; route: string; seconds: number }): void {
    this.requests += 1;
    const cls = outcome === 'network' ? 'network' : classOf(outcome);
    this.byClass.set(cls, (this.byClass.get(cls) ?? 0) + 1);
    if (timing && this.onRequest) this.onRequest({ ...timing, statusClass: cls });
  }

  recordRetry(): void {
    this.retries += 1;
  }

  snapshot(): RequestStats {
    return { requests: this.requests, retries: this.retries, byClass: Object.fromEntries(this.byClass) };
  }
}

function classOf(status: number): StatusClass {
  if (status >= 500) return '5xx';
  if (status >= 400) return '4xx';
  if (status >= 300) return '3xx';
  return '2xx';
}

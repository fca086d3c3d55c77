// Exponential backoff with full jitter: the delay is uniform in [0, min(cap, base * 2^attempt)],
// which spreads a crowd of retrying clients better than equal or no jitter.

import { onAbort } from './abort-fanout.js';
import { WbsyncError } from '../domain/errors.js';

export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  /** Injected for tests; defaults to Math.random. */
  random?: () => number;
}

/** Delay before retry number `attempt` (0 = first retry). */
export function computeBackoff(attempt: number, opts: BackoffOptions): number {
  const ceiling = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.min(attempt, 30));
  const random = opts.random ?? Math.random;
  return Math.floor(random() * ceiling);
}

/** Sleeps `ms`, rejecting early (with a cancelled WbsyncError) when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(cancelledError());
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    // many requests back off at once under one shared signal: one listener for all (abort-fanout)
    const unsubscribe = signal
      ? onAbort(signal, () => {
          clearTimeout(timer);
          reject(cancelledError());
        })
      : () => undefined;
    const timer = setTimeout(() => {
      unsubscribe();
      resolve();
    }, ms);
  });
}

export function cancelledError(endpoint?: string): WbsyncError {
  return new WbsyncError('unreachable', `${endpoint ?? 'request'}: cancelled`, {
    endpoint,
    retryable: false,
    details: { cancelled: true },
  });
}

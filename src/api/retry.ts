// Retry decorator: exponential backoff with full jitter for idempotent requests, never a blind
// second POST, and the 401-while-the-database-is-down dance of the deployed service.

import type { Logger } from 'pino';
import { WbsyncError } from '../domain/errors.js';
import { computeBackoff, sleep, type BackoffOptions } from './backoff.js';
import { describeEndpoint, isIdempotent } from './endpoint.js';
import { errorFromResponse } from './response-errors.js';
import type { StatsRecorder } from './stats.js';
import type { ApiRequest, ApiResponse, Transport } from './transport.js';

export interface RetryInfo {
  endpoint: string;
  /** 1 for the first retry. */
  attempt: number;
  delayMs: number;
  reason: string;
  status?: number;
}

export interface RetryOptions {
  retries: number;
  backoff: BackoffOptions;
  stats: StatsRecorder;
  /** GET / says whether the database is up: true, false, or null when the probe itself failed. */
  probeDatabase: (signal?: AbortSignal) => Promise<boolean | null>;
  onRetry?: (info: RetryInfo) => void;
  logger?: Logger;
}

type Verdict =
  | { kind: 'done'; res: ApiResponse }
  | { kind: 'retry'; reason: string; status?: number; databaseDown?: boolean; last: WbsyncError };

export function withRetry(inner: Transport, opts: RetryOptions): Transport {
  async function send(req: ApiRequest): Promise<ApiResponse> {
    const endpoint = describeEndpoint(req.method, req.template);
    let retriesDone = 0;
    let authRetryUsed = false;
    for (;;) {
      const verdict = await attempt(req, endpoint);
      if (verdict.kind === 'done') {
        if (verdict.res.status !== 401) return verdict.res;
        // The database is up, so the 401 is about the key: one short retry covers a key that
        // was rotated a moment ago by this same user, then the caller gets 'auth'.
        if (authRetryUsed || opts.retries === 0) return verdict.res;
        authRetryUsed = true;
        await pause(endpoint, 'HTTP 401 with the database up', 401, opts.backoff.baseMs, req.signal, retriesDone + 1);
        continue;
      }
      if (retriesDone >= opts.retries) throw exhausted(verdict, retriesDone);
      const delay = computeBackoff(retriesDone, opts.backoff);
      retriesDone += 1;
      await pause(endpoint, verdict.reason, verdict.status, delay, req.signal, retriesDone);
    }
  }

  async function attempt(req: ApiRequest, endpoint: string): Promise<Verdict> {
    const idempotent = isIdempotent(req.method);
    let res: ApiResponse;
    try {
      res = await inner.send(req);
    } catch (err) {
      if (!(err instanceof WbsyncError) || !err.retryable) throw err;
      // A refused connection never reached the server: safe to resend even a create.
      const sent = err.details?.['requestSent'] !== false;
      if (!idempotent && sent) throw outcomeUnknown(endpoint, err.message, err.status, err);
      return { kind: 'retry', reason: String(err.details?.['failure'] ?? 'network'), last: err };
    }
    if (res.status === 401) {
      const up = await opts.probeDatabase(req.signal);
      if (up === true) return { kind: 'done', res };
      // A 401 is answered before any work is done, so retrying a create here is safe too.
      const last = new WbsyncError('unreachable', databaseDownMessage(endpoint, up), {
        endpoint,
        status: 401,
        retryable: true,
        hint: 'This is an outage, not a key problem: the service cannot check keys while its database is down. Try again later.',
        details: { databaseDown: up === false, healthUnreachable: up === null },
      });
      return { kind: 'retry', reason: up === false ? 'database down' : 'health check failed', status: 401, databaseDown: true, last };
    }
    if (res.status >= 500 || res.status === 429) {
      // 503 (database unreachable) and 429 are answered before the work is done.
      const notProcessed = res.status === 503 || res.status === 429;
      const last = errorFromResponse(res);
      if (!idempotent && !notProcessed) throw outcomeUnknown(endpoint, last.message, res.status, undefined);
      return { kind: 'retry', reason: `HTTP ${res.status}`, status: res.status, last };
    }
    return { kind: 'done', res };
  }

  async function pause(endpoint: string, reason: string, status: number | undefined, delayMs: number, signal: AbortSignal | undefined, n: number): Promise<void> {
    opts.stats.recordRetry();
    const info: RetryInfo = { endpoint, attempt: n, delayMs, reason, status };
    opts.onRetry?.(info);
    opts.logger?.debug(info, 'request retry');
    await sleep(delayMs, signal);
  }

  return { send, close: () => inner.close() };
}

function databaseDownMessage(endpoint: string, up: boolean | null): string {
  return up === false
    ? `${endpoint}: the service's database is down (it answered 401 and its health check reports the database unreachable)`
    : `${endpoint}: the service answered 401 and its health check (GET /) failed too: the service looks down`;
}

function exhausted(v: Extract<Verdict, { kind: 'retry' }>, retriesDone: number): WbsyncError {
  const last = v.last;
  if (last.code === 'http' && last.status === 429) return last;
  const suffix = retriesDone === 0 ? '' : `; gave up after ${retriesDone} ${retriesDone === 1 ? 'retry' : 'retries'}`;
  return new WbsyncError('unreachable', `${last.message}${suffix}`, {
    endpoint: last.endpoint,
    status: last.status,
    retryable: true,
    hint: last.hint ?? 'The service stayed unreachable or failing; check baseUrl and the service, then try again.',
    cause: last.cause,
    details: { ...(last.details ?? {}), retries: retriesDone },
  });
}

function outcomeUnknown(endpoint: string, what: string, status: number | undefined, err: WbsyncError | undefined): WbsyncError {
  return new WbsyncError(
    err === undefined ? 'http' : 'unreachable',
    `${what} — outcome unknown: the create may have happened, so it was not resent`,
    {
      endpoint,
      status,
      retryable: false,
      hint: 'Look the object up (list its parent) before creating it again.',
      cause: err?.cause,
      details: { ...(err?.details ?? {}), outcomeUnknown: true },
    },
  );
}

// The ServiceClient over HTTP: transport (undici, key, timeout, size cap) <- queue (in-flight
// bound) <- retry (backoff, 401 triage), then decoding and normalising at the edge. Every error
// that leaves this file is a WbsyncError scrubbed of the key.

import type { Logger } from 'pino';
import { readHealth } from './health.js';
import { readMethods, verbsOf, writeMethods, type Call } from './http-methods.js';
import type { Health, ServiceClient } from './port.js';
import { scrubError } from './redact.js';
import { errorFromResponse } from './response-errors.js';
import { withGate, type RequestGate } from './gate.js';
import { withQueue } from './queue.js';
import { withRetry, type RetryInfo } from './retry.js';
import { StatsRecorder, type RequestTiming } from './stats.js';
import { createUndiciTransport, type ApiRequest } from './transport.js';

export type { RetryInfo } from './retry.js';
export type { RequestTiming } from './stats.js';
export { describeEndpoint } from './endpoint.js';

export interface HttpClientOptions {
  /** Service root; requests go to `${baseUrl}/api/...`, health to `${baseUrl}/`. */
  baseUrl: string;
  apiKey: string;
  /** Requests in flight (default 8). */
  concurrency?: number;
  /** Whole-exchange deadline per request (default 30000). */
  timeoutMs?: number;
  /** Retries after the first attempt (default 5). */
  retries?: number;
  /** Full-jitter backoff: delay uniform in [0, min(max, base * 2^n)] (defaults 250 / 10000). */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Bodies larger than this are refused (default 64 MiB). */
  maxBodyBytes?: number;
  onRetry?: (info: RetryInfo) => void;
  /** Every finished exchange (retries included), with its route template and duration. */
  onRequest?: (timing: RequestTiming) => void;
  logger?: Logger;
  /** Injected for tests: the jitter source (default Math.random). */
  random?: () => number;
  /** A shared budget each request waits on before it goes out (fleet workers; gate.ts). */
  gate?: RequestGate;
}

export const HTTP_DEFAULTS = {
  concurrency: 8,
  timeoutMs: 30_000,
  retries: 5,
  backoffBaseMs: 250,
  backoffMaxMs: 10_000,
  maxBodyBytes: 64 * 1024 * 1024,
} as const;

export function createHttpClient(opts: HttpClientOptions): ServiceClient {
  const key = opts.apiKey;
  const stats = new StatsRecorder(opts.onRequest);
  const concurrency = opts.concurrency ?? HTTP_DEFAULTS.concurrency;
  const transport = createUndiciTransport({
    baseUrl: opts.baseUrl,
    apiKey: key,
    timeoutMs: opts.timeoutMs ?? HTTP_DEFAULTS.timeoutMs,
    maxBodyBytes: opts.maxBodyBytes ?? HTTP_DEFAULTS.maxBodyBytes,
    stats,
    connections: Math.max(1, concurrency),
  });
  const queued = withQueue(opts.gate ? withGate(transport, opts.gate) : transport, concurrency);
  const healthRequest = (signal?: AbortSignal): ApiRequest => ({ method: 'GET', template: '/', api: false, signal });
  const stack = withRetry(queued, {
    retries: opts.retries ?? HTTP_DEFAULTS.retries,
    backoff: {
      baseMs: opts.backoffBaseMs ?? HTTP_DEFAULTS.backoffBaseMs,
      maxMs: opts.backoffMaxMs ?? HTTP_DEFAULTS.backoffMaxMs,
      random: opts.random,
    },
    stats,
    onRetry: opts.onRetry,
    logger: opts.logger,
    probeDatabase: async (signal) => {
      try {
        return readHealth(await queued.send(healthRequest(signal))).databaseUp;
      } catch {
        return null;
      }
    },
  });

  /** Sends through the stack and decodes a 2xx; any failure leaves as a scrubbed WbsyncError. */
  const call: Call = async (method, template, params, decode, extra = {}) => {
    try {
      const res = await stack.send({ method, template, params, body: extra.body, query: extra.query, signal: extra.opts?.signal, priority: extra.opts?.priority });
      if (res.status < 200 || res.status >= 300) throw errorFromResponse(res);
      // Decoding waits for the check phase (afterArrivals): every answer that has already arrived
      // is first taken off its socket and its slot given to the next request. Decoded at once, in
      // the same turn, an answer would keep the answers that arrived beside it (32 answers to
      // requests sent together arrive together) waiting on the wire while it is parsed, checked and
      // handed on (docs/performance.md, eleventh round).
      await afterArrivals();
      return decode(res);
    } catch (err) {
      throw scrubError(err, key);
    }
  };
  const verbs = verbsOf(call);

  const client: ServiceClient = {
    async health(o): Promise<Health> {
      try {
        return readHealth(await queued.send(healthRequest(o?.signal)));
      } catch (err) {
        throw scrubError(err, key);
      }
    },

    ...readMethods(verbs),
    ...writeMethods(verbs),
    stats: () => stats.snapshot(),
    close: () => stack.close(),
  };
  return client;
}

/**
 * Lets answers be decoded in the event loop's check phase: after the poll phase has taken every
 * answer already on its socket off the wire (and handed each one's slot to the next request). An
 * answer waits for the check phase right after the poll phase that read it, so no more answers wait
 * undecoded than were in flight. (Decoding one per turn, with the sockets polled between, measured
 * the same within the spread, and would let answers pile up undecoded whenever they arrive faster
 * than they are decoded: slots are freed on arrival.)
 */
function afterArrivals(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

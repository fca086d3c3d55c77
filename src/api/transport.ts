// The bottom layer: one HTTP exchange over a shared keep-alive undici Agent. It adds the key
// (the only place that does), enforces the per-request timeout and the body size cap, and turns
// every network failure into a WbsyncError that says whether the request may have been processed.

import { Agent } from 'undici';
import { WbsyncError } from '../domain/errors.js';
import { buildPath, describeEndpoint, type HttpMethod } from './endpoint.js';
import { summariseCause } from './redact.js';
import type { StatsRecorder } from './stats.js';

export interface ApiRequest {
  method: HttpMethod;
  /** Path template relative to `/api` (or to the root when `api` is false), e.g. `/records/{collectionId}`. */
  template: string;
  params?: Readonly<Record<string, string>>;
  query?: Readonly<Record<string, string | number | boolean | undefined>>;
  body?: unknown;
  /** false for the health check: `GET ${baseUrl}/`, outside `/api`, sent without the key. */
  api?: boolean;
  signal?: AbortSignal;
  /** Queued ahead of requests of a lower priority (queue.ts; default 0). */
  priority?: number;
}

export interface ApiResponse {
  status: number;
  contentType: string;
  text: string;
  /** `GET /records/{collectionId}` */
  endpoint: string;
  /** The Location header of a 3xx answer (never followed), to name where it pointed. */
  location?: string;
}

/** What went wrong below HTTP; `requestSent` false means the server cannot have acted on it. */
export type NetworkFailure = 'refused' | 'reset' | 'timeout' | 'truncated' | 'too_large' | 'network';

export interface Transport {
  send(req: ApiRequest): Promise<ApiResponse>;
  close(): Promise<void>;
}

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  maxBodyBytes: number;
  stats: StatsRecorder;
  /** Sockets kept open to the service; at least the queue's concurrency. */
  connections: number;
}

export function createUndiciTransport(opts: TransportOptions): Transport {
  const base = new URL(opts.baseUrl.endsWith('/') ? opts.baseUrl : `${opts.baseUrl}/`);
  const prefix = base.pathname.replace(/\/$/, '');
  const agent = new Agent({ connections: opts.connections, keepAliveTimeout: 10_000, pipelining: 1 });

  async function send(req: ApiRequest): Promise<ApiResponse> {
    const endpoint = describeEndpoint(req.method, req.template);
    const started = performance.now();
    const timing = (): { method: string; route: string; seconds: number } => ({ method: req.method, route: req.template, seconds: (performance.now() - started) / 1000 });
    const api = req.api ?? true;
    const url = new URL(base.origin);
    url.pathname = `${prefix}${api ? '/api' : ''}${buildPath(req.template, req.params)}`.replace(/\/{2,}/g, '/') || '/';
    for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));

    const headers: Record<string, string> = { accept: 'application/json' };
    if (api) headers['x-api-key'] = opts.apiKey;
    let body: string | undefined;
    if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }

    // One deadline for the whole exchange (connect, headers and body), not per socket event.
    let stage: 'connect' | 'headers' | 'body' = 'connect';
    let timedOut = false;
    try {
      const res = await exchange(agent, {
        origin: base.origin,
        path: `${url.pathname}${url.search}`,
        method: req.method,
        headers,
        body,
        timeoutMs: opts.timeoutMs,
        maxBodyBytes: opts.maxBodyBytes,
        ...(req.signal ? { signal: req.signal } : {}),
        onBody: () => void (stage = 'body'),
        onTimeout: () => void (timedOut = true),
        tooLarge: (status) => tooLarge(endpoint, opts.maxBodyBytes, status),
      });
      const contentType = headerValue(res.headers['content-type']);
      const declared = Number(headerValue(res.headers['content-length']) || Number.NaN);
      if (Number.isFinite(declared) && res.size < declared) {
        throw networkError(endpoint, 'truncated', true, `body truncated (${res.size} of ${declared} bytes)`, undefined, res.status);
      }
      opts.stats.recordRequest(res.status, timing());
      const location = res.status >= 300 && res.status < 400 ? headerValue(res.headers['location']) : '';
      return { status: res.status, contentType, text: res.text, endpoint, ...(location ? { location } : {}) };
    } catch (err) {
      if (err instanceof WbsyncError) {
        // An over-cap body was a complete HTTP answer; a truncated one was a network failure.
        const tooBig = err.details?.['failure'] === 'too_large';
        opts.stats.recordRequest(tooBig && err.status !== undefined ? err.status : 'network', timing());
        throw err;
      }
      opts.stats.recordRequest('network', timing());
      if (req.signal?.aborted) {
        throw new WbsyncError('unreachable', `${endpoint}: cancelled`, { endpoint, details: { cancelled: true } });
      }
      throw classifyNetworkError(err, endpoint, stage, timedOut, opts);
    }
  }

  return {
    send,
    close: () => agent.close(),
  };
}

interface Exchange {
  origin: string;
  path: string;
  method: HttpMethod;
  headers: Record<string, string>;
  body: string | undefined;
  timeoutMs: number;
  maxBodyBytes: number;
  signal?: AbortSignal;
  /** The answer's head has arrived: a failure from here on is in its body. */
  onBody(): void;
  /** The deadline passed (the exchange is aborted with a timeout). */
  onTimeout(): void;
  tooLarge(status: number): WbsyncError;
}

type Headers = Record<string, string | string[] | undefined>;

/**
 * One request through the Agent's own dispatch, the body gathered as it arrives: no stream object,
 * async iterator or AbortController per request (undici's `request()` costs about twice the CPU of
 * the round trip itself). Settles once: with the whole answer, or with the first of a transport
 * error, the deadline, the caller's cancel, or a body over the cap (the exchange is then aborted).
 */
function exchange(agent: Agent, x: Exchange): Promise<{ status: number; headers: Headers; text: string; size: number }> {
  return new Promise((resolve, reject) => {
    let settled = false;
    let abort: ((reason: Error) => void) | null = null;
    /** A reason to abort that came before undici handed over its abort (the request still queued). */
    let early: Error | null = null;
    const stop = (reason: Error): void => {
      if (abort) abort(reason);
      else early = reason;
    };
    const finish = (): void => {
      settled = true;
      clearTimeout(timer);
      x.signal?.removeEventListener('abort', cancel);
    };
    const fail = (err: unknown): void => {
      if (settled) return;
      finish();
      reject(err);
    };
    const timer = setTimeout(() => {
      x.onTimeout();
      const err = new Error('timeout');
      stop(err);
      fail(err);
    }, x.timeoutMs);
    function cancel(): void {
      const err = new Error('cancelled');
      stop(err);
      fail(err);
    }
    if (x.signal?.aborted) return cancel();
    x.signal?.addEventListener('abort', cancel, { once: true });
    let status = 0;
    let headers: Headers = {};
    const chunks: Buffer[] = [];
    let size = 0;
    const over = (): void => {
      const err = x.tooLarge(status);
      stop(err);
      fail(err);
    };
    try {
      agent.dispatch(
        { origin: x.origin, path: x.path, method: x.method, headers: x.headers, body: x.body, headersTimeout: x.timeoutMs, bodyTimeout: x.timeoutMs },
        {
          onRequestStart(controller) {
            abort = (reason) => controller.abort(reason);
            if (early) controller.abort(early);
          },
          onResponseStart(_controller, statusCode, responseHeaders) {
            if (settled) return;
            status = statusCode;
            headers = responseHeaders as Headers;
            x.onBody();
            const declared = Number(headerValue(headers['content-length']) || Number.NaN);
            if (Number.isFinite(declared) && declared > x.maxBodyBytes) over();
          },
          onResponseData(_controller, chunk) {
            if (settled) return;
            size += chunk.length;
            if (size > x.maxBodyBytes) return over();
            chunks.push(chunk);
          },
          onResponseEnd() {
            if (settled) return;
            finish();
            resolve({ status, headers, text: Buffer.concat(chunks, size).toString('utf8'), size });
          },
          onResponseError(_controller, err) {
            fail(err);
          },
        },
      );
    } catch (err) {
      fail(err);
    }
  });
}

function headerValue(v: string | string[] | undefined): string {
  return Array.isArray(v) ? (v[0] ?? '') : (v ?? '');
}

function tooLarge(endpoint: string, cap: number, status: number): WbsyncError {
  return new WbsyncError('bad_response', `${endpoint}: response body larger than the ${cap}-byte cap`, {
    endpoint,
    status,
    retryable: false,
    // The cap is not configurable: no answer of the service comes near it unless something is wrong.
    hint: 'No answer of the Workspace Board Service should be this large: check that baseUrl points at it (not at a file server or a proxy error page), and report it if it does.',
    details: { failure: 'too_large' satisfies NetworkFailure },
  });
}

function networkError(
  endpoint: string,
  failure: NetworkFailure,
  requestSent: boolean,
  what: string,
  cause: unknown,
  status?: number,
): WbsyncError {
  return new WbsyncError('unreachable', `${endpoint}: ${what}`, {
    endpoint,
    status,
    retryable: true,
    cause,
    details: { failure, requestSent },
  });
}

function classifyNetworkError(
  err: unknown,
  endpoint: string,
  stage: 'connect' | 'headers' | 'body',
  timedOut: boolean,
  opts: TransportOptions,
): WbsyncError {
  const cause = summariseCause(err, opts.apiKey);
  const code = cause.code ?? '';
  if (timedOut || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return networkError(endpoint, 'timeout', true, `no complete answer within ${opts.timeoutMs} ms`, cause);
  }
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return networkError(endpoint, 'refused', false, `cannot connect to the service (${code})`, cause);
  }
  if (stage === 'body' || code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') {
    return networkError(endpoint, 'truncated', true, `connection closed before the whole body arrived (${code || cause.name})`, cause);
  }
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') {
    return networkError(endpoint, 'reset', true, `connection reset (${code})`, cause);
  }
  return networkError(endpoint, 'network', true, `network error (${code || cause.name})`, cause);
}

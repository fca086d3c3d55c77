// The contract suite's own HTTP client: plain fetch, one call per spec route name, no retries and
// no knowledge of the product's client (src/api), so neither can agree with the other by accident.

import { splitRoute, type RouteName } from './endpoints.js';

export type Params = Record<string, string>;
export type Query = Record<string, string | number | boolean | undefined>;

export interface SendOptions {
  /** JSON-encoded as the request body. */
  body?: unknown;
  /** Sent verbatim (with content-type application/json unless headers say otherwise). */
  rawBody?: string | Uint8Array;
  query?: Query;
  headers?: Record<string, string>;
  /** Overrides the actor's key; null sends no credential at all. */
  key?: string | null;
  timeoutMs?: number;
}

export interface Reply {
  method: string;
  url: string;
  status: number;
  headers: Headers;
  text: string;
  /** Parsed body when the answer is JSON, else undefined. */
  json: unknown;
  isJson: boolean;
  isHtml: boolean;
  ms: number;
}

export function fillPath(template: string, params: Params): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`missing path parameter {${name}} for ${template}`);
    return encodeURIComponent(value);
  });
}

export async function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  opts: SendOptions & { apiPrefix?: boolean } = {},
): Promise<Reply> {
  const prefix = opts.apiPrefix === false ? '' : '/api';
  const url = new URL(baseUrl.replace(/\/+$/, '') + prefix + path);
  for (const [k, v] of Object.entries(opts.query ?? {})) {
    if (v !== undefined) url.searchParams.set(k, String(v));
  }
  const headers: Record<string, string> = { accept: 'application/json' };
  if (opts.key) headers['x-api-key'] = opts.key;
  let body: string | Uint8Array | undefined;
  if (opts.rawBody !== undefined) {
    body = opts.rawBody;
    headers['content-type'] = 'application/json';
  } else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
  }
  Object.assign(headers, opts.headers ?? {});
  const started = performance.now();
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers,
      body,
      signal: AbortSignal.timeout(opts.timeoutMs ?? 20_000),
    });
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof Error ? ` (${err.cause.message})` : '';
    throw new Error(`${method} ${url.pathname} failed at the transport level: ${String(err)}${cause}`);
  }
  const text = await res.text();
  const ms = performance.now() - started;
  const contentType = res.headers.get('content-type') ?? '';
  let json: unknown;
  let isJson = false;
  if (contentType.includes('json') && text.length > 0) {
    try {
      json = JSON.parse(text);
      isJson = true;
    } catch {
      isJson = false;
    }
  }
  return {
    method,
    url: url.pathname + url.search,
    status: res.status,
    headers: res.headers,
    text,
    json,
    isJson,
    isHtml: contentType.includes('text/html'),
    ms,
  };
}

/** One signed-in user of the service, as seen through its key. */
export class Actor {
  constructor(
    readonly baseUrl: string,
    readonly id: string,
    readonly email: string,
    public key: string,
    readonly label: string,
  ) {}

  send(route: RouteName, params: Params = {}, opts: SendOptions = {}): Promise<Reply> {
    const { method, template } = splitRoute(route);
    const key = opts.key === undefined ? this.key : opts.key;
    return rawRequest(this.baseUrl, method, fillPath(template, params), { ...opts, key });
  }

  /** A call off the spec's route list (unknown routes, health check). */
  raw(method: string, path: string, opts: SendOptions & { apiPrefix?: boolean } = {}): Promise<Reply> {
    const key = opts.key === undefined ? this.key : opts.key;
    return rawRequest(this.baseUrl, method, path, { ...opts, key });
  }
}

/** Short description of a reply for assertion messages. */
export function describeReply(r: Reply): string {
  const text = r.text.length > 400 ? `${r.text.slice(0, 400)}…` : r.text;
  return `${r.method} ${r.url} -> ${r.status} ${r.headers.get('content-type') ?? ''} ${text}`;
}

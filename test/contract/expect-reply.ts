// Assertions on replies, per dialect: the spec's JSON {message} errors and unwrapped bodies versus
// the deployed service's HTML error pages and `{message, <resource>}` wrappers.

import { expect } from 'vitest';
import type { z } from 'zod';
import { describeReply, type Reply } from './client.js';
import type { Ctx } from './harness.js';
import { parseAs } from './schemas.js';

export type Body = Record<string, unknown>;

export function expectStatus(r: Reply, status: number): void {
  expect(r.status, describeReply(r)).toBe(status);
}

/** 2xx with a JSON object body, returned. */
export function expectOk(r: Reply): Body {
  expect(r.status >= 200 && r.status < 300, `expected 2xx: ${describeReply(r)}`).toBe(true);
  expect(r.isJson && typeof r.json === 'object' && r.json !== null, `expected a JSON object: ${describeReply(r)}`).toBe(true);
  return r.json as Body;
}

/** A `{message}` answer (deletes, accept/decline, read-all, revert). */
export function expectMessage(r: Reply): Body {
  const body = expectOk(r);
  expect(typeof body.message, `expected {message}: ${describeReply(r)}`).toBe('string');
  return body;
}

export type StatusClass = number | '4xx' | 'error';

function statusMatches(status: number, want: StatusClass): boolean {
  if (typeof want === 'number') return status === want;
  if (want === '4xx') return status >= 400 && status < 500;
  return status >= 400;
}

/** A failure with a JSON body that carries `message` (spec: every failure; observed: most). */
export function expectJsonError(r: Reply, status: StatusClass, message?: string | RegExp): string {
  expect(statusMatches(r.status, status), `expected ${status}: ${describeReply(r)}`).toBe(true);
  expect(r.isJson, `expected a JSON error body: ${describeReply(r)}`).toBe(true);
  const msg = (r.json as Body | undefined)?.message;
  expect(typeof msg, `expected a string 'message': ${describeReply(r)}`).toBe('string');
  if (typeof message === 'string') expect(msg, describeReply(r)).toBe(message);
  else if (message) expect(String(msg), describeReply(r)).toMatch(message);
  return String(msg);
}

/** Express's default HTML error page (observed: unknown routes, malformed JSON bodies). */
export function expectHtmlError(r: Reply, status: number): void {
  expect(r.status, describeReply(r)).toBe(status);
  expect(r.isHtml, `expected an HTML error page: ${describeReply(r)}`).toBe(true);
}

/**
 * The answer of a create or update. Spec: `{<key>}`, or the bare object for collections, columns
 * and record values. Observed: always `{message, <key>}`.
 */
export function written<S extends z.ZodType>(
  ctx: Ctx,
  r: Reply,
  key: string,
  schema: S,
  opts: { bareInSpec?: boolean } = {},
): z.infer<S> {
  const body = expectOk(r);
  if (ctx.spec && opts.bareInSpec) {
    expect(body[key], `spec answers the bare object, not {${key}}: ${describeReply(r)}`).toBeUndefined();
    return parseAs(schema, body, `${r.method} ${r.url}`);
  }
  if (ctx.observed) {
    expect(typeof body.message, `observed wraps writes with a message: ${describeReply(r)}`).toBe('string');
  }
  expect(body[key], `expected {${key}}: ${describeReply(r)}`).toBeDefined();
  return parseAs(schema, body[key], `${r.method} ${r.url} .${key}`);
}

/** `{<key>: X}` of a read. */
export function got<S extends z.ZodType>(r: Reply, key: string, schema: S): z.infer<S> {
  const body = expectOk(r);
  return parseAs(schema, body[key], `${r.method} ${r.url} .${key}`);
}

/** `{<key>: [X]}` of a list read. */
export function listed<S extends z.ZodType>(r: Reply, key: string, schema: S): Array<z.infer<S>> {
  const body = expectOk(r);
  const list = body[key];
  expect(Array.isArray(list), `expected {${key}: [...]}: ${describeReply(r)}`).toBe(true);
  return (list as unknown[]).map((item, i) => parseAs(schema, item, `${r.method} ${r.url} .${key}[${i}]`));
}

/** Ids as the deployed service makes them (MongoDB ObjectIds). */
export function expectObservedId(ctx: Ctx, id: string): void {
  if (ctx.observed) expect(id).toMatch(/^[0-9a-f]{24}$/);
}

/** The answer to an id that does not exist, per dialect and id family (observed: see "Transport and errors"). */
export function expectUnknownId(ctx: Ctx, r: Reply, family: 'child' | 'module' | 'other'): void {
  if (ctx.spec) {
    expectJsonError(r, 404);
    return;
  }
  if (family === 'child') expectJsonError(r, 400, 'Invalid board id');
  else if (family === 'module') expectJsonError(r, 404, 'Board not found');
  else expect(r.status, describeReply(r)).toBeGreaterThanOrEqual(400);
}

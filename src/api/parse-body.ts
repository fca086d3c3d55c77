// The edge between bytes and types: JSON parsing, both body shapes (wrapped `{message, thing}`
// or bare), and zod validation whose failure names the endpoint and the failing field path.
// Parsed objects are never copied by assignment, so a hostile `__proto__` key stays inert data.

import type { z } from 'zod';
import { WbsyncError } from '../domain/errors.js';
import { YES, inPlaceCheckOf } from './in-place-check.js';
import type { ApiResponse } from './transport.js';

export type PathSegment = string | number;

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Own property only: `body.constructor` must not find Object's constructor. */
export function ownField(obj: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

function looksLikeHtml(res: ApiResponse): boolean {
  return /html/i.test(res.contentType) || /^\s*</.test(res.text);
}

/** A declared type that is not JSON (`application/json`, `…+json`); no type at all is let through. */
function declaredNotJson(contentType: string): string | undefined {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type === '' || type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type)) return undefined;
  return type;
}

/** The body as JSON, or a bad_response naming the endpoint (an HTML error page is the usual case). */
export function parseJsonBody(res: ApiResponse): unknown {
  let body: unknown;
  try {
    body = JSON.parse(res.text) as unknown;
  } catch {
    const what = res.text.trim() === '' ? 'an empty body' : looksLikeHtml(res) ? 'an HTML page' : 'a body that is not JSON';
    throw new WbsyncError('bad_response', `${res.endpoint}: expected JSON, got ${what} (HTTP ${res.status})`, {
      endpoint: res.endpoint,
      status: res.status,
      hint: looksLikeHtml(res) ? 'An HTML answer usually means the route does not exist there: check baseUrl.' : undefined,
    });
  }
  // JSON-looking bytes under another declared type (image/png, text/html) are not the service's answer.
  const other = declaredNotJson(res.contentType);
  if (other !== undefined) {
    throw new WbsyncError('bad_response', `${res.endpoint}: expected a JSON answer, got content-type ${JSON.stringify(other.slice(0, 100))} (HTTP ${res.status})`, {
      endpoint: res.endpoint,
      status: res.status,
      hint: 'Check that baseUrl points at the Workspace Board Service and not at something in front of it (a proxy, a file server).',
    });
  }
  return body;
}

/** The service's own `message` from an error body, if it sent JSON with one. */
export function readServiceMessage(res: ApiResponse): string | undefined {
  try {
    const body: unknown = JSON.parse(res.text);
    if (isPlainObject(body)) {
      const msg = ownField(body, 'message') ?? ownField(body, 'error');
      if (typeof msg === 'string' && msg.trim() !== '') return msg.length > 300 ? `${msg.slice(0, 300)}…` : msg;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

export interface Unwrapped {
  value: unknown;
  path: PathSegment[];
}

/**
 * A single object either wrapped (`{message, record: {...}}`) or bare (`{_id, ...}`). An object
 * with its own `_id` is the entity itself: a cell has a `value` field, a record a `workspace` one.
 */
export function unwrapObject(body: unknown, envelopeKeys: readonly string[]): Unwrapped {
  if (isPlainObject(body) && !Object.hasOwn(body, '_id')) {
    for (const key of envelopeKeys) {
      const inner = ownField(body, key);
      if (isPlainObject(inner)) return { value: inner, path: [key] };
    }
  }
  return { value: body, path: [] };
}

/** A list either wrapped (`{records: [...]}`) or a bare array. */
export function unwrapList(body: unknown, listKey: string): Unwrapped {
  if (Array.isArray(body)) return { value: body, path: [] };
  if (isPlainObject(body)) {
    const inner = ownField(body, listKey);
    if (inner !== undefined) return { value: inner, path: [listKey] };
  }
  // Let the schema report the missing list under its expected name.
  return { value: undefined, path: [listKey] };
}

export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out === '' ? '(body)' : out;
}

/** Validates with zod; a failure becomes bad_response naming the endpoint and the first bad field. */
export function validate<S extends z.ZodType>(schema: S, unwrapped: Unwrapped, res: ApiResponse): z.output<S> {
  // zod would accept the value and give back the same data: the value itself, no copy (in-place-check.ts)
  if (inPlaceCheckOf(schema)?.(unwrapped.value) === YES) return unwrapped.value as z.output<S>;
  const result = schema.safeParse(unwrapped.value);
  if (result.success) return result.data;
  const issues = result.error.issues.slice(0, 3).map((issue) => {
    const path = formatPath([...unwrapped.path, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))]);
    return { path, message: issue.message };
  });
  const first = issues[0] ?? { path: formatPath(unwrapped.path), message: 'invalid' };
  const more = result.error.issues.length > 1 ? ` (and ${result.error.issues.length - 1} more)` : '';
  return failSchema(res, `${first.path}: ${first.message}${more}`, issues);
}

function failSchema(res: ApiResponse, summary: string, issues: { path: string; message: string }[]): never {
  throw new WbsyncError('bad_response', `${res.endpoint}: unexpected response shape at ${summary}`, {
    endpoint: res.endpoint,
    status: res.status,
    hint: 'The service answered with a shape wbsync does not know; check that baseUrl points at the Workspace Board Service and report it if so.',
    details: { issues },
  });
}

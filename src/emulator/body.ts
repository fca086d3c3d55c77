// Reading request bodies defensively. Bodies arrive as `unknown`; each field is read through a
// typed accessor that applies the dialect's validation (spec: 400; observed: Mongoose-like casts
// and 500s). Only own properties are read, so `__proto__` keys never reach a document.

import type { DialectRules, Kind } from './dialect.js';
import { fail } from './http-reply.js';
import type { Json } from './docs.js';

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class Body {
  private readonly obj: Record<string, unknown>;
  constructor(
    raw: unknown,
    private readonly rules: DialectRules,
    private readonly kind: Kind,
  ) {
    if (raw === undefined || raw === null) this.obj = {};
    else if (isPlainObject(raw)) this.obj = raw;
    else if (rules.observed) this.obj = {};
    else throw fail(400, 'Request body must be a JSON object');
  }

  has(key: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.obj, key) && this.obj[key] !== undefined;
  }

  raw(key: string): unknown {
    return this.has(key) ? this.obj[key] : undefined;
  }

  keys(): string[] {
    return Object.keys(this.obj);
  }

  /** A non-empty string. Observed casts numbers/booleans like Mongoose does. */
  requiredString(key: string): string {
    const v = this.raw(key);
    if (v === undefined || v === null || v === '') throw this.rules.missing(this.kind, key);
    return this.castString(key, v);
  }

  optionalString(key: string): string | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (v === null) return this.rules.observed ? '' : this.castString(key, v);
    return this.castString(key, v);
  }

  optionalNumber(key: string): number | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    if (this.rules.observed && typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
    throw this.rules.badType(this.kind, key, v, 'Number');
  }

  optionalBoolean(key: string): boolean | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (typeof v === 'boolean') return v;
    if (this.rules.observed && (v === 'true' || v === 'false')) return v === 'true';
    throw this.rules.badType(this.kind, key, v, 'Boolean');
  }

  /** JSON-safe deep copy of a field (drops functions; keeps `__proto__` as plain data). */
  jsonCopy(key: string): Json | undefined {
    const v = this.raw(key);
    return v === undefined ? undefined : toJson(v);
  }

  private castString(key: string, v: unknown): string {
    if (typeof v === 'string') return v;
    if (this.rules.observed && (typeof v === 'number' || typeof v === 'boolean')) return String(v);
    throw this.rules.badType(this.kind, key, v, 'String');
  }
}

export function toJson(value: unknown): Json {
  // Parsed request bodies are already JSON; the round trip makes a defensive, prototype-free copy.
  return JSON.parse(JSON.stringify(value ?? null)) as Json;
}

// A canonical JSON text (object keys sorted, recursively) and its sha256: the content hash that
// lets an unchanged entity skip writing a new version. Written as text directly so hostile keys
// such as "__proto__" are never assigned onto an object. This runs for every row of a pass (about
// 200k in the benchmark's dataset), so it is written as plain loops: no map/filter/join arrays.
// Most objects arrive with their keys in order already (the service sorts them): for those the
// native JSON.stringify gives the same text at a fraction of the cost, so a subtree is first
// checked (reading keys only, building nothing) and written natively when it is canonical.
import { createHash, hash } from 'node:crypto';

function scalar(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? 'null' : text;
}

/** Own keys of `obj`, sorted (JSON.parse usually gives them unsorted; sorted input is kept). */
export function sortedKeys(obj: object): string[] {
  const keys = Object.keys(obj);
  for (let i = 1; i < keys.length; i++) {
    if (keys[i - 1]! > keys[i]!) return keys.sort();
  }
  return keys;
}

/**
 * True when JSON.stringify(value) already is canonicalJson(value): JSON scalars, arrays of such, and
 * plain objects (no prototype other than Object's, no toJSON) whose own keys are in sorted order.
 * Anything else (a function, a Date, a Map, keys out of order) takes the written-out path.
 */
export function isCanonical(value: unknown): boolean {
  if (value === null) return true;
  const t = typeof value;
  if (t === 'string' || t === 'boolean' || t === 'number') return true;
  if (t !== 'object') return false; // undefined, function, symbol, bigint: the slow path decides
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      // an array hole or undefined is 'null' in both
      if (v !== undefined && !isCanonical(v)) return false;
    }
    return true;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  const obj = value as Record<string, unknown>;
  if (typeof obj.toJSON === 'function') return false;
  const keys = Object.keys(obj);
  for (let i = 0; i < keys.length; i++) {
    if (i > 0 && keys[i - 1]! > keys[i]!) return false;
    const v = obj[keys[i]!];
    // an undefined property is left out by both
    if (v !== undefined && !isCanonical(v)) return false;
  }
  return true;
}

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return scalar(value);
  if (isCanonical(value)) return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += canonicalJson(value[i]);
    }
    return `${out}]`;
  }
  const obj = value as Record<string, unknown>;
  let out = '{';
  let first = true;
  for (const k of sortedKeys(obj)) {
    const v = obj[k];
    if (v === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(k)}:${canonicalJson(v)}`;
    first = false;
  }
  return `${out}}`;
}

/** One-shot sha256 (crypto.hash, Node 20.12+: no Hash object per row), else the streaming API. */
export function sha256Hex(text: string): string {
  return typeof hash === 'function' ? hash('sha256', text, 'hex') : createHash('sha256').update(text).digest('hex');
}

export function contentHash(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

// A canonical JSON text (object keys sorted, recursively) and its sha256: the content hash that
// lets an unchanged entity skip writing a new version. Written as text directly so hostile keys
// such as "__proto__" are never assigned onto an object. This runs for every row of a pass (about
// 200k in the benchmark's dataset), so it is written as plain loops: no map/filter/join arrays.
// A plain JSON value is put in canonical form first (a subtree whose keys are in order kept as it
// is, others copied with their keys inserted in sorted order) and written by the native
// JSON.stringify, at a fraction of the cost of writing it out key by key.
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

/** Key orders met lately, each with its sorted copy: a pass meets the same few object shapes
 * (a cell's raw, its column, a user summary) hundreds of thousands of times, unsorted alike. */
const SHAPES = 16;
const shapeKeys: string[][] = [];
const shapeSorted: string[][] = [];
let shapeNext = 0;

/** `keys` sorted (a new array), from the shape cache when the same keys came in the same order. */
function sortedLike(keys: string[]): string[] {
  for (let s = 0; s < shapeKeys.length; s++) {
    const seen = shapeKeys[s]!;
    if (seen.length !== keys.length) continue;
    let i = 0;
    while (i < keys.length && seen[i] === keys[i]) i++;
    if (i === keys.length) return shapeSorted[s]!;
  }
  const sorted = keys.slice().sort();
  shapeKeys[shapeNext] = keys;
  shapeSorted[shapeNext] = sorted;
  shapeNext = (shapeNext + 1) % SHAPES;
  return sorted;
}

/** canonicalForm's answer for a value the native path must not take (the written-out path does). */
export const NOT_PLAIN: unique symbol = Symbol('not plain JSON');

/** A key V8 may order before the others whatever the insertion order (an array index, or what
 * might be one): a copy with such a key could not be put in sorted order. */
const mayBeIndex = (k: string): boolean => {
  const c = k.charCodeAt(0);
  return c >= 48 && c <= 57;
};

/**
 * `value` itself when JSON.stringify(value) already is canonicalJson(value), else a copy (objects
 * with their keys inserted in sorted order; arrays) whose JSON.stringify is, or NOT_PLAIN when the
 * value holds anything but JSON scalars, arrays and plain objects (a function, a Date, toJSON) or
 * an object to copy with a digit-led or "__proto__" key: the written-out path then decides. The service's answers arrive with their keys unsorted, so every row used to take
 * the written-out path, key by key; one native JSON.stringify of the copy does the same work.
 */
export function canonicalForm(value: unknown): unknown {
  if (value === null) return value;
  const t = typeof value;
  if (t === 'string' || t === 'boolean' || t === 'number') return value;
  if (t !== 'object') return NOT_PLAIN; // undefined, function, symbol, bigint
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      // an array hole or undefined is 'null' in both
      if (v === undefined) continue;
      const c = canonicalForm(v);
      if (c === NOT_PLAIN) return NOT_PLAIN;
      if (c !== v) {
        if (!out) {
          out = new Array<unknown>(value.length);
          for (let j = 0; j < i; j++) out[j] = value[j];
        }
      }
      if (out) out[i] = c;
    }
    return out ?? value;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
  const obj = value as Record<string, unknown>;
  if (typeof obj.toJSON === 'function') return NOT_PLAIN;
  let keys = Object.keys(obj);
  let inOrder = true;
  for (let i = 1; i < keys.length; i++) {
    if (keys[i - 1]! > keys[i]!) {
      inOrder = false;
      break;
    }
  }
  if (inOrder) {
    // kept as it is unless a member needs a copy
    let i = 0;
    for (; i < keys.length; i++) {
      const v = obj[keys[i]!];
      if (v === undefined) continue;
      const c = canonicalForm(v);
      if (c === NOT_PLAIN) return NOT_PLAIN;
      if (c !== v) break;
    }
    if (i === keys.length) return obj;
  } else {
    keys = sortedLike(keys);
  }
  // an object literal (a null-prototype object is a slow dictionary to V8's JSON.stringify); a
  // "__proto__" key would set its prototype instead of a key, so it takes the written-out path
  const out: Record<string, unknown> = {};
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (mayBeIndex(k) || k === '__proto__') return NOT_PLAIN;
    const v = obj[k];
    if (v === undefined) continue;
    const c = canonicalForm(v);
    if (c === NOT_PLAIN) return NOT_PLAIN;
    out[k] = c;
  }
  return out;
}

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return scalar(value);
  const form = canonicalForm(value);
  if (form !== NOT_PLAIN) return JSON.stringify(form);
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

// A canonical JSON text (object keys sorted, recursively) and its sha256: the content hash that
// lets an unchanged entity skip writing a new version. Written as text directly so hostile keys
// such as "__proto__" are never assigned onto an object. This runs for every row of a pass (about
// 200k in the benchmark's dataset), so it is written as plain loops: no map/filter/join arrays.
import { createHash } from 'node:crypto';

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

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return scalar(value);
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

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function contentHash(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

import { describe, expect, it } from 'vitest';
import { NOT_PLAIN, canonicalForm, canonicalJson, contentHash } from '../../domain/canonical-json.js';
import type { EntityKind } from '../../domain/entities.js';
import { SPECS, toRow } from './entity-specs.js';
import { makeActivity, makeCell, makeMember, makeRecord } from '../fixtures.js';
import { encodeRow, hashable } from './row-encoding.js';

/** A deterministic pseudo-random JSON value: nested objects, arrays, hostile keys and strings. */
function randomJson(seed: number, depth = 0): unknown {
  let s = seed;
  const next = (): number => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const strings = ['', 'plain', 'quote " and \\ slash', '😀 emoji', '\u202eRTL', 'a\u0000nul', "'; DROP TABLE x;--", '{"looks":"json"}'];
  const keys = ['b', 'a', '__proto__', 'constructor', 'Z', 'ä', '10', '2', 'raw', 'user'];
  const pick = <T>(xs: T[]): T => xs[Math.floor(next() * xs.length)]!;
  const kind = depth > 2 ? Math.floor(next() * 4) : Math.floor(next() * 6);
  switch (kind) {
    case 0:
      return pick(strings);
    case 1:
      return next() < 0.5 ? Math.round(next() * 1e6) / 100 : -0;
    case 2:
      return next() < 0.5 ? null : next() < 0.5;
    case 3:
      return undefined;
    case 4:
      return Array.from({ length: Math.floor(next() * 4) }, (_, i) => randomJson(seed * 31 + i, depth + 1));
    default: {
      // JSON.parse makes "__proto__" an own key; so must we
      const text = `{${Array.from({ length: Math.floor(next() * 5) }, () => `${JSON.stringify(pick(keys))}:0`).join(',')}}`;
      const obj = JSON.parse(text) as Record<string, unknown>;
      Object.keys(obj).forEach((k, i) => Object.defineProperty(obj, k, { value: randomJson(seed * 17 + i, depth + 1), enumerable: true, writable: true, configurable: true }));
      return obj;
    }
  }
}

/** The written-out definition every stored hash was made with (before the native fast path). */
function referenceCanonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(referenceCanonical).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort().filter((k) => obj[k] !== undefined);
  return `{${keys.map((k) => `${JSON.stringify(k)}:${referenceCanonical(obj[k])}`).join(',')}}`;
}

/** `v` rebuilt with every object's keys in sorted order (what the service usually sends). */
function sortedClone(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedClone);
  if (v === null || typeof v !== 'object') return v;
  const out = Object.create(null) as Record<string, unknown>;
  for (const k of Object.keys(v).sort()) out[k] = sortedClone((v as Record<string, unknown>)[k]);
  return Object.setPrototypeOf(out, Object.prototype) as unknown;
}

const kinds: Array<[EntityKind, (i: number) => object]> = [
  ['activity', (i) => makeActivity(`a${i}`, 'w1', { raw: { _id: `a${i}`, canRevert: i % 2 === 0, revertBlocker: i % 3 ? null : 'later write', extra: randomJson(i) } })],
  ['member', (i) => makeMember('w1', `u${i}`, { raw: { user: { _id: `u${i}`, presence: i % 2 ? 'online' : 'away', nested: randomJson(i) }, z: randomJson(i + 1) } })],
  ['record', (i) => makeRecord(`r${i}`, 'm1', 'c1', { raw: { _id: `r${i}`, z: randomJson(i), a: randomJson(i + 3) } })],
  ['cell', (i) => makeCell(`c${i}`, 'r1', 'k1', { value: 'v', raw: { _id: `c${i}`, column: randomJson(i + 7), value: randomJson(i) } })],
];

describe('row encoding', () => {
  it('canonicalJson sorts keys at every depth, drops undefined members and keeps hostile keys as keys', () => {
    const obj = JSON.parse('{"b":1,"__proto__":{"y":2,"x":[3,{"d":4,"c":5}]},"a":"\\u0000"}') as Record<string, unknown>;
    obj.u = undefined;
    expect(canonicalJson(obj)).toBe('{"__proto__":{"x":[3,{"c":5,"d":4}],"y":2},"a":"\\u0000","b":1}');
    expect(canonicalJson([undefined, NaN, 'x'])).toBe('[null,null,"x"]');
    expect(({} as Record<string, unknown>).y).toBeUndefined();
  });

  it('canonicalJson gives the written-out definition\'s text for sorted and unsorted input alike (the native fast path included)', () => {
    for (let i = 0; i < 2000; i++) {
      const v = randomJson(i);
      expect(canonicalJson(v), `seed ${i}`).toBe(referenceCanonical(v));
      expect(canonicalJson(sortedClone(v)), `seed ${i} sorted`).toBe(referenceCanonical(v));
    }
    // what the fast path must not take natively: toJSON, non-plain objects, functions, integer-like keys
    const odd: unknown[] = [
      { a: 1, toJSON: () => 'x' }, { d: new Date(0) }, { m: new Map([[1, 2]]) }, { f: () => 1, g: 2 }, JSON.parse('{"10":1,"2":2}'),
      [1, undefined, () => 1], JSON.parse('{"__proto__":{"b":1,"a":2},"z":[{"y":1,"x":2}]}'),
    ];
    for (const v of odd) expect(canonicalJson(v)).toBe(referenceCanonical(v));
  });

  it('puts unsorted service answers in canonical form for the native path (hostile keys kept as own keys), and refuses what it cannot copy in order', () => {
    const text = '{"_id":"a1","user":{"name":"x","_id":"u1"},"constructor":{"y":1,"x":[{"f":1,"e":2}]},"b":[3,{"d":4,"c":5}],"a":null}';
    const form = canonicalForm(JSON.parse(text));
    expect(form).not.toBe(NOT_PLAIN);
    expect(JSON.stringify(form)).toBe(referenceCanonical(JSON.parse(text)));
    expect(JSON.stringify(form)).toBe('{"_id":"a1","a":null,"b":[3,{"c":5,"d":4}],"constructor":{"x":[{"e":2,"f":1}],"y":1},"user":{"_id":"u1","name":"x"}}');
    // an own "__proto__" key: no copy could hold it as a key, the written-out path keeps it one
    const hostile = JSON.parse('{"b":1,"__proto__":{"y":2,"x":1}}') as unknown;
    expect(canonicalForm(hostile)).toBe(NOT_PLAIN);
    expect(canonicalJson(hostile)).toBe('{"__proto__":{"x":1,"y":2},"b":1}');
    // a sorted subtree is kept as it is; an array is copied only when an item is
    const sorted = JSON.parse('{"a":[1,{"b":2}],"c":{"d":1}}') as Record<string, unknown>;
    expect(canonicalForm(sorted)).toBe(sorted);
    const mixed = JSON.parse('{"a":[1,{"z":1,"y":2}],"c":{"d":1}}') as Record<string, unknown>;
    const mixedForm = canonicalForm(mixed) as Record<string, unknown>;
    expect(mixedForm.c).toBe(mixed.c);
    expect(mixedForm.a).not.toBe(mixed.a);
    // V8 puts integer-like keys first whatever the insertion order: no copy can hold them sorted
    expect(canonicalForm(JSON.parse('{"b":{"10":1,"9":2},"a":1}'))).toBe(NOT_PLAIN);
    for (const v of [{ f: () => 1 }, [new Date(0)], { a: { toJSON: () => 1 } }, { u: undefined, s: Symbol('x') }]) expect(canonicalForm(v)).toBe(NOT_PLAIN);
  });

  it('sorts each object by its own keys when shapes recur, differ by one key or outnumber the shapes remembered', () => {
    const shapes = Array.from({ length: 40 }, (_, i) => `{"z${i % 20}":1,"b":2,"a${i % 3}":3,"m":{"y":${i},"x":null}}`);
    // each shape met several times, interleaved with its neighbours (same length, other keys)
    for (let round = 0; round < 3; round++) {
      for (const text of shapes) {
        const v = JSON.parse(text) as unknown;
        expect(canonicalJson(v), text).toBe(referenceCanonical(v));
      }
    }
  });

  it.each(kinds)('hashes %s rows exactly as the stored hashes were made (canonical JSON of hashable)', (kind, make) => {
    for (let i = 0; i < 300; i++) {
      const entity = make(i);
      const enc = encodeRow(kind, SPECS[kind], entity);
      expect(enc.hash).toBe(contentHash(hashable(kind, entity)));
      // the stored raw is the same object, keys sorted
      const rawAt = SPECS[kind].fields.findIndex((f) => f.prop === 'raw');
      expect(JSON.parse(enc.values[rawAt] as string)).toEqual(JSON.parse(JSON.stringify((entity as { raw: unknown }).raw)));
      expect(enc.values[rawAt]).toBe(canonicalJson((entity as { raw: unknown }).raw));
      // every other column is what toRow makes
      const plain = toRow(SPECS[kind], entity);
      expect(enc.values.filter((_, j) => j !== rawAt)).toEqual(plain.filter((_, j) => j !== rawAt));
    }
  });

  it('leaves read-time fields out of the hash but keeps them in the stored raw', () => {
    const a = makeActivity('a1', 'w1', { raw: { _id: 'a1', canRevert: true, revertBlocker: null } });
    const b = makeActivity('a1', 'w1', { raw: { _id: 'a1', canRevert: false, revertBlocker: 'blocked by a later write' } });
    const ea = encodeRow('activity', SPECS.activity, a);
    const eb = encodeRow('activity', SPECS.activity, b);
    expect(ea.hash).toBe(eb.hash);
    expect(ea.values.at(-1)).toBe('{"_id":"a1","canRevert":true,"revertBlocker":null}');
    const m1 = makeMember('w1', 'u1', { raw: { user: { _id: 'u1', presence: 'online' } } });
    const m2 = makeMember('w1', 'u1', { raw: { user: { _id: 'u1', presence: 'away' } } });
    expect(encodeRow('member', SPECS.member, m1).hash).toBe(encodeRow('member', SPECS.member, m2).hash);
    const m3 = makeMember('w1', 'u1', { raw: { user: { _id: 'u1', presence: 'away', email: 'new@example.com' } } });
    expect(encodeRow('member', SPECS.member, m3).hash).not.toBe(encodeRow('member', SPECS.member, m2).hash);
  });

  it('cuts the read-time members out of the one text it writes only where that is the definition\'s text (nested look-alikes, hostile keys, first or only key)', () => {
    const raws: unknown[] = [
      { canRevert: true },
      { canRevert: true, z: 1 },
      { revertBlocker: null },
      { _id: 'a', canRevert: false, revertBlocker: 'x', zz: { canRevert: false } },
      { _id: 'a', canRevert: true, revertBlocker: null, meta: { canRevert: 10, revertBlocker: null } },
      { _id: 'a', canRevert: 1, nested: { canRevert: 10 } },
      { _id: 'a', canRevert: 10, nested: { canRevert: 1 } },
      JSON.parse('{"a\\"canRevert":true,"canRevert":true,"revertBlocker":{"b":1,"a":[null]}}'),
      JSON.parse('{"z":"\\"canRevert\\":true","canRevert":true,"after":"{\\"revertBlocker\\":null}","revertBlocker":null}'),
      { _id: 'a', canRevert: undefined, revertBlocker: undefined, after: 'x' },
      { canRevert: true, revertBlocker: null },
    ];
    for (const [i, raw] of raws.entries()) {
      const e = makeActivity(`a${i}`, 'w1', { raw: raw as Record<string, unknown> });
      const got = encodeRow('activity', SPECS.activity, e);
      expect(got.hash, JSON.stringify(raw)).toBe(contentHash(hashable('activity', e)));
      expect(got.values.at(-1), JSON.stringify(raw)).toBe(referenceCanonical(raw));
    }
  });

  it('does not depend on the order the service sent the keys in', () => {
    const a = makeRecord('r1', 'm1', 'c1', { raw: JSON.parse('{"_id":"r1","name":"x","meta":{"b":1,"a":2}}') as Record<string, unknown> });
    const b = makeRecord('r1', 'm1', 'c1', { raw: JSON.parse('{"meta":{"a":2,"b":1},"name":"x","_id":"r1"}') as Record<string, unknown> });
    expect(encodeRow('record', SPECS.record, a)).toEqual(encodeRow('record', SPECS.record, b));
  });

  it('hashes as the definition does when entities of one kind come with other keys or in another order (the key plan is per kind)', () => {
    const base = makeCell('c1', 'r1', 'k1', { value: 'v', raw: { _id: 'c1', value: 'v' } }) as unknown as Record<string, unknown>;
    const reversed = Object.fromEntries(Object.entries(base).reverse());
    const fewer = Object.fromEntries(Object.entries(base).filter(([k]) => k !== 'updatedAt'));
    const more = { ...base, zExtra: { b: 1, a: [true, null] }, aExtra: 2 };
    const withUndefined = { ...base, value: undefined };
    // interleaved, so each one meets a plan made for another shape
    for (const e of [base, reversed, base, fewer, more, base, withUndefined, reversed, more]) {
      expect(encodeRow('cell', SPECS.cell, e).hash).toBe(contentHash(hashable('cell', e)));
    }
    expect(encodeRow('cell', SPECS.cell, reversed).hash).toBe(encodeRow('cell', SPECS.cell, base).hash);
    expect(encodeRow('cell', SPECS.cell, fewer).hash).not.toBe(encodeRow('cell', SPECS.cell, base).hash);
  });
});

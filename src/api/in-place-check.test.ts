// The in-place check against zod itself: on the service's schemas, over valid answers and answers
// mutated at random (wrong types, missing fields, hostile ids, non-finite numbers, __proto__ and
// constructor keys), a YES must be a value zod accepts and hands back unchanged, and a NO one zod
// refuses. validate() runs zod on everything else, so its errors stay zod's own.

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { NO, UNSURE, YES, inPlaceCheckOf } from './in-place-check.js';
import { validate } from './parse-body.js';
import * as s from './schemas.js';
import type { ApiResponse } from './transport.js';

const OID = '65a1b2c3d4e5f60718293a4b';
const T = '2026-01-15T09:00:00.000Z';

const samples: Array<[string, z.ZodType, unknown]> = [
  ['record', s.RecordSchema, { _id: OID, name: 'Row', position: 3, collectionName: OID, parentRecord: null, module: { _id: OID, name: 'M' }, workspace: OID, subRecordCount: 0, amendmentCount: 2, isCompleted: false, isArchived: false, createdAt: T, updatedAt: T, extra: { deep: [1, 'x'] } }],
  ['cell', s.CellSchema, { _id: OID, record: OID, column: null, value: { a: [1, 2, { b: null }] }, createdAt: T, updatedAt: T }],
  ['activity', s.ActivitySchema, { _id: OID, action: 'record_updated', message: 'm', targetName: null, before: { name: 'a' }, after: 'b', user: { _id: OID, email: 'e' }, module: OID, collectionName: OID, record: OID, column: null, automation: null, workspace: OID, createdAt: T, canRevert: true }],
  ['column', s.ColumnSchema, { _id: OID, name: 'Status', type: 'status', module: OID, scope: 'subrecord', position: 1, width: 120, isRequired: false, isHidden: true, statusOptions: [{ label: 'Done', color: '#0f0' }], settings: { a: 1, b: { c: 2 } } }],
  ['automation', s.AutomationSchema, { _id: OID, name: 'A', workspace: OID, module: null, scope: 'workspace', trigger: { type: 'x' }, conditions: [1, { a: 2 }], match: 'all', actions: [{ type: 'notify' }], isActive: true, runCount: 3, lastRunAt: null, lastError: '', createdAt: T }],
  ['member', s.MemberSchema, { _id: OID, role: 'admin', status: 'active', joinedAt: T, user: { _id: OID, firstName: 'A', lastName: 'B', email: 'a@b' } }],
  ['module', s.ModuleSchema, { _id: OID, name: 'M', workspace: OID, description: null, tags: [{ label: 't', color: null }], createdAt: T }],
  ['workspace item', s.WorkspaceListItemSchema, { workspace: { _id: OID, name: 'W', slug: 'w' } }],
  ['references', s.ReferencesSchema, { [OID]: { [OID]: { items: [OID], display: 'x' } } }],
  ['activity page', s.ActivityPageSchema, { activities: [{}, 1], hasMore: true, nextCursor: 'c', retentionDays: 30 }],
  ['amendment', s.AmendmentSchema, { _id: OID, record: OID, module: OID, workspace: OID, user: null, message: '', parentComment: null, edited: false, isDeleted: true, createdAt: T }],
  ['module ids', s.ModuleIdsSchema, { moduleIds: [OID, OID] }],
];

/** A small deterministic PRNG (mulberry32), so a failure names a reproducible case. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const REPLACEMENTS: unknown[] = [
  null, 0, -1.5, true, false, '', 'x$(touch${IFS}/tmp/PWNED)', OID, 'a'.repeat(65), [], [OID], {}, { _id: OID }, { _id: 'bad id' }, '__proto__',
];

/** A copy of `value` (through JSON, as the wire gives it) with one node replaced, removed or given a hostile key. */
function mutate(value: unknown, next: () => number): unknown {
  const copy = JSON.parse(JSON.stringify(value)) as unknown;
  const nodes: Array<{ parent: Record<string, unknown> | unknown[]; key: string | number }> = [];
  const objects: Array<Record<string, unknown>> = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach((x, i) => (nodes.push({ parent: v, key: i }), walk(x)));
    else if (v !== null && typeof v === 'object') {
      objects.push(v as Record<string, unknown>);
      for (const k of Object.keys(v)) nodes.push({ parent: v as Record<string, unknown>, key: k }), walk((v as Record<string, unknown>)[k]);
    }
  };
  walk(copy);
  const how = next();
  if (how < 0.15 && objects.length) {
    // a hostile key, as JSON.parse makes it: an own property
    const o = objects[Math.floor(next() * objects.length)]!;
    const key = next() < 0.5 ? '__proto__' : 'constructor';
    Object.defineProperty(o, key, { value: next() < 0.5 ? { polluted: true } : 'x', enumerable: true, configurable: true, writable: true });
    return copy;
  }
  if (!nodes.length) return REPLACEMENTS[Math.floor(next() * REPLACEMENTS.length)];
  const n = nodes[Math.floor(next() * nodes.length)]!;
  if (how < 0.35 && !Array.isArray(n.parent)) delete (n.parent as Record<string, unknown>)[n.key as string];
  else if (how < 0.45) (n.parent as Record<string | number, unknown>)[n.key] = next() < 0.5 ? Infinity : NaN;
  else (n.parent as Record<string | number, unknown>)[n.key] = REPLACEMENTS[Math.floor(next() * REPLACEMENTS.length)];
  return copy;
}

describe('in-place check against zod', () => {
  it('compiles for the schemas a full pass validates most', () => {
    for (const schema of [s.RecordSchema, s.CellSchema, s.ActivitySchema, s.ActivityPageSchema, s.AmendmentSchema, s.ColumnSchema, s.ReferencesSchema]) {
      expect(inPlaceCheckOf(schema)).not.toBeNull();
    }
  });

  it('accepts the valid samples in place (zod gives back the same data)', () => {
    for (const [name, schema, value] of samples) {
      const verdict = inPlaceCheckOf(schema)!(value);
      expect(verdict, name).toBe(YES);
      const parsed = schema.safeParse(value);
      expect(parsed.success, name).toBe(true);
      expect(parsed.data, name).toEqual(value);
    }
  });

  it('never says YES where zod would change the value or refuse it, never NO where zod accepts (5,000 mutations)', () => {
    const next = rng(37);
    const seen = { [YES]: 0, [NO]: 0, [UNSURE]: 0 };
    for (let i = 0; i < 5000; i++) {
      const [name, schema, value] = samples[i % samples.length]!;
      const mutated = mutate(value, next);
      const verdict = inPlaceCheckOf(schema)!(mutated);
      seen[verdict]++;
      const parsed = schema.safeParse(mutated);
      const at = `${name}: ${JSON.stringify(mutated)}`;
      if (verdict === YES) {
        expect(parsed.success, at).toBe(true);
        expect(parsed.data, at).toEqual(mutated);
      }
      if (verdict === NO) expect(parsed.success, at).toBe(false);
    }
    // the mutations reach every verdict
    expect(seen[YES]).toBeGreaterThan(100);
    expect(seen[NO]).toBeGreaterThan(100);
    expect(seen[UNSURE]).toBeGreaterThan(10);
  });

  it('leaves to zod what zod changes: a default, an own __proto__ key', () => {
    const column = { _id: OID, name: 'Plain' };
    expect(inPlaceCheckOf(s.ColumnSchema)!(column)).toBe(UNSURE);
    const res = { endpoint: 'GET /columns/{moduleId}', status: 200 } as ApiResponse;
    expect(validate(s.ColumnSchema, { value: column, path: [] }, res).type).toBe('text');
    const settings = JSON.parse('{"_id":"' + OID + '","name":"C","settings":{"__proto__":{"polluted":true}}}') as unknown;
    expect(inPlaceCheckOf(s.ColumnSchema)!(settings)).toBe(UNSURE);
    const out = validate(s.ColumnSchema, { value: settings, path: [] }, res);
    expect(out).not.toBe(settings);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('returns the value itself on YES, and refuses a hostile id with zod\'s error', () => {
    const res = { endpoint: 'GET /records/{collectionId}', status: 200 } as ApiResponse;
    const value = samples[0]![2];
    expect(validate(s.RecordSchema, { value, path: ['records', 0] }, res)).toBe(value);
    const hostile = { ...(value as object), _id: 'x$(touch${IFS}/tmp/PWNED)' };
    expect(() => validate(s.RecordSchema, { value: hostile, path: ['records', 0] }, res)).toThrow(
      /GET \/records\/\{collectionId\}: unexpected response shape at records\[0\]\._id: expected an id/,
    );
  });

  it('compiles to null (zod decides) for what it does not mirror', () => {
    expect(inPlaceCheckOf(z.object({ a: z.string() }))).toBeNull(); // strips unknown keys
    expect(inPlaceCheckOf(z.string().min(2))).toBeNull();
    expect(inPlaceCheckOf(z.looseObject({ a: z.string().transform((x) => x.length) }))).toBeNull();
    expect(inPlaceCheckOf(z.number().int())).toBeNull();
  });
});

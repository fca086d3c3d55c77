// Validating the service's answers in place (issue #37). zod's parse builds a copy of every object
// it accepts (a full pass copies each of its 200,000 rows, and collects the copies); the check
// here is compiled from the same zod schema and walks the parsed JSON without building anything.
// It answers YES only where zod would accept the value and hand back the same data (a copy of it),
// NO where zod would surely refuse it, and UNSURE otherwise. validate() (parse-body.ts) returns
// the value itself on YES and runs zod on anything else, so every refusal — and its error — is
// still zod's own, and whatever zod would change (a default filled in, an own `__proto__` key
// dropped from a rebuilt object) still goes through zod.
//
// Mirrors zod 4.x's parse (node_modules/zod/v4/core/schemas.js): a schema kind or check not
// listed here compiles to null (zod decides every time), so a schema edited later stays correct,
// only slower. in-place-check.test.ts holds the verdicts against zod's on the service's schemas.

import type { z } from 'zod';

export const NO = 0;
export const YES = 1;
export const UNSURE = 2;
export type Verdict = typeof NO | typeof YES | typeof UNSURE;
export type InPlaceCheck = (value: unknown) => Verdict;

interface ZodInternals {
  def: Record<string, any> & { type: string; checks?: Array<{ _zod: { def: Record<string, any> } }> };
  optin?: 'optional' | 'defaulted';
  optout?: 'optional';
  values?: Set<unknown>;
}

const internals = (schema: unknown): ZodInternals => (schema as { _zod: ZodInternals })._zod;

const compiled = new WeakMap<object, InPlaceCheck | null>();

/** The in-place check of `schema`, or null when it uses something the check does not mirror. */
export function inPlaceCheckOf(schema: z.ZodType): InPlaceCheck | null {
  let check = compiled.get(schema);
  if (check === undefined) {
    check = compile(schema);
    compiled.set(schema, check);
  }
  return check;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Checks other than a string's regex (lengths, refinements) are left to zod. */
function regexChecks(def: ZodInternals['def']): RegExp[] | null {
  const out: RegExp[] = [];
  for (const c of def.checks ?? []) {
    const d = c._zod.def;
    if (d.check !== 'string_format' || d.format !== 'regex' || !(d.pattern instanceof RegExp) || d.when || d.abort) return null;
    out.push(d.pattern);
  }
  return out;
}

function compile(schema: unknown): InPlaceCheck | null {
  const zod = internals(schema);
  const def = zod.def;
  if (def.coerce) return null;
  if (def.type !== 'string' && def.checks?.length) return null;
  switch (def.type) {
    case 'string': {
      const patterns = regexChecks(def);
      if (!patterns) return null;
      if (patterns.length === 0) return (v) => (typeof v === 'string' ? YES : NO);
      // zod resets lastIndex before each test; only a global or sticky pattern reads it
      if (patterns.length === 1 && !patterns[0]!.global && !patterns[0]!.sticky) {
        const p = patterns[0]!;
        return (v) => (typeof v === 'string' && p.test(v) ? YES : NO);
      }
      return (v) => {
        if (typeof v !== 'string') return NO;
        for (const p of patterns) {
          p.lastIndex = 0;
          if (!p.test(v)) return NO;
        }
        return YES;
      };
    }
    case 'number':
      return (v) => (typeof v === 'number' && Number.isFinite(v) ? YES : NO);
    case 'boolean':
      return (v) => (typeof v === 'boolean' ? YES : NO);
    case 'null':
      return (v) => (v === null ? YES : NO);
    case 'unknown':
    case 'any':
      return () => YES;
    case 'optional': {
      const inner = compile(def.innerType);
      if (!inner) return null;
      // an inner default substitutes for undefined: zod's output is not the value
      const defaulted = internals(def.innerType).optin === 'defaulted';
      return (v) => (v === undefined ? (defaulted ? UNSURE : YES) : inner(v));
    }
    case 'nullable': {
      const inner = compile(def.innerType);
      if (!inner) return null;
      return (v) => (v === null ? YES : inner(v));
    }
    case 'default': {
      const inner = compile(def.innerType);
      if (!inner) return null;
      return (v) => (v === undefined ? UNSURE : inner(v));
    }
    case 'union':
      return compileUnion(def);
    case 'array': {
      const element = compile(def.element);
      if (!element) return null;
      return (v) => {
        if (!Array.isArray(v)) return NO;
        let verdict: Verdict = YES;
        for (const item of v) {
          const r = element(item);
          if (r === NO) return NO;
          if (r === UNSURE) verdict = UNSURE;
        }
        return verdict;
      };
    }
    case 'object':
      return compileObject(def);
    case 'record':
      return compileRecord(def);
    default:
      return null;
  }
}

function compileUnion(def: ZodInternals['def']): InPlaceCheck | null {
  // an exclusive union (z.xor) or a discriminated one decides differently: zod's own
  if (def.inclusive === false || def.discriminator !== undefined) return null;
  const options = (def.options as unknown[]).map(compile);
  if (options.some((o) => o === null)) return null;
  const checks = options as InPlaceCheck[];
  // zod takes the first option that accepts: a later one only counts once every earlier one surely refuses
  return (v) => {
    for (const check of checks) {
      const r = check(v);
      if (r !== NO) return r;
    }
    return NO;
  };
}

function compileObject(def: ZodInternals['def']): InPlaceCheck | null {
  // Only loose objects (unknown keys kept, as the value has them): a stripping or strict one's
  // output differs from its input, or refuses unknown keys.
  if (!def.catchall || internals(def.catchall).def.type !== 'unknown') return null;
  const shape = def.shape as Record<string, unknown>;
  if (Object.getOwnPropertySymbols(shape).length) return null;
  const fields: Array<{ key: string; check: InPlaceCheck; optin: string | undefined; optout: string | undefined }> = [];
  for (const key of Object.keys(shape)) {
    if (key === '__proto__') return null;
    const check = compile(shape[key]);
    if (!check) return null;
    const z = internals(shape[key]);
    fields.push({ key, check, optin: z.optin, optout: z.optout });
  }
  return (v) => {
    if (!isObject(v)) return NO;
    // zod leaves an own __proto__ key out of the object it builds: let it
    if (Object.hasOwn(v, '__proto__')) return UNSURE;
    let verdict: Verdict = YES;
    for (const f of fields) {
      const x = v[f.key];
      // (`in`, as zod asks: a key is present even when its value is undefined)
      if (x === undefined && !(f.key in v)) {
        // absent: refused unless optional; an optional one is skipped; anything else (a default) is zod's
        if (f.optin === undefined) return NO;
        if (f.optin === 'optional' && f.optout === 'optional') continue;
        verdict = UNSURE;
        continue;
      }
      const r = f.check(x);
      if (r === NO) return NO;
      if (r === UNSURE) verdict = UNSURE;
    }
    return verdict;
  };
}

function compileRecord(def: ZodInternals['def']): InPlaceCheck | null {
  // keys of an enumerable set, a partial record or a key schema other than a string: zod's own
  if (internals(def.keyType).def.type !== 'string' || internals(def.keyType).values || def.partial || def.mode === 'loose') return null;
  const key = compile(def.keyType);
  const value = compile(def.valueType);
  if (!key || !value) return null;
  return (v) => {
    if (!isObject(v)) return NO;
    // zod's plain-object test reads `constructor`, and its copy leaves out `__proto__`: let it decide
    if (Object.hasOwn(v, '__proto__') || Object.hasOwn(v, 'constructor')) return UNSURE;
    if (Object.getPrototypeOf(v) !== Object.prototype) return UNSURE;
    let verdict: Verdict = YES;
    for (const k of Object.keys(v)) {
      const rk = key(k);
      if (rk !== YES) return rk === NO ? NO : UNSURE;
      const r = value(v[k]);
      if (r === NO) return NO;
      if (r === UNSURE) verdict = UNSURE;
    }
    return verdict;
  };
}

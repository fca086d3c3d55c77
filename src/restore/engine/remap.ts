// Ids inside values: column settings, automations and relation cells name other objects by id. A
// restore gives every object of the module a new id, so the planner records which old ids a value
// holds (its refs) and the applier swaps them for the new ones once those exist.

import { WbsyncError } from '../../domain/errors.js';

/** A value holding old ids of the restored module (`refs`), to be resolved when applied. */
export interface Remappable<T> {
  value: T;
  refs: string[];
}

function walk(v: unknown, visit: (s: string) => void): void {
  if (typeof v === 'string') visit(v);
  else if (Array.isArray(v)) for (const x of v) walk(x, visit);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x, visit);
}

function replace(v: unknown, swap: (s: string) => string): unknown {
  if (typeof v === 'string') return swap(v);
  if (Array.isArray(v)) return v.map((x) => replace(x, swap));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, replace(x, swap)]));
  return v;
}

/** Replaces every string equal to a mapped id, at any depth (diff's a → b map, the planners'
 * ids of other modules and users). */
export function translateIds(v: unknown, map: ReadonlyMap<string, string>): unknown {
  return replace(v, (s) => map.get(s) ?? s);
}

/** The internal ids a value mentions, in first-seen order. */
export function collectRefs(v: unknown, internal: ReadonlySet<string>): string[] {
  const out = new Set<string>();
  walk(v, (s) => {
    if (internal.has(s)) out.add(s);
  });
  return [...out];
}

export function remappable<T>(value: T, internal: ReadonlySet<string>): Remappable<T> {
  return { value, refs: collectRefs(value, internal) };
}

/** A cell value: JSON text (relation arrays) is parsed to find ids; plain strings are kept as sent. */
export function remappableCell(value: string, internal: ReadonlySet<string>): Remappable<string> {
  if (internal.has(value)) return { value, refs: [value] };
  if (!(value.startsWith('[') || value.startsWith('{'))) return { value, refs: [] };
  try {
    return { value, refs: collectRefs(JSON.parse(value) as unknown, internal) };
  } catch {
    return { value, refs: [] };
  }
}

export type IdLookup = (oldId: string) => string | undefined;

function swapper(r: Remappable<unknown>, lookup: IdLookup): (s: string) => string {
  const refs = new Set(r.refs);
  return (s) => {
    if (!refs.has(s)) return s;
    const to = lookup(s);
    // A ref is created in an earlier phase; a miss is a planning bug, not a service problem.
    if (to === undefined) throw new WbsyncError('internal', `restore: id ${s} is referenced before it was created`);
    return to;
  };
}

/** The value with every ref swapped for its new id. */
export function resolveRefs<T>(r: Remappable<T>, lookup: IdLookup): T {
  if (r.refs.length === 0) return r.value;
  return replace(r.value, swapper(r as Remappable<unknown>, lookup)) as T;
}

export function resolveCell(r: Remappable<string>, lookup: IdLookup): string {
  if (r.refs.length === 0) return r.value;
  const swap = swapper(r as Remappable<unknown>, lookup);
  if (!(r.value.startsWith('[') || r.value.startsWith('{'))) return swap(r.value);
  return JSON.stringify(replace(JSON.parse(r.value) as unknown, swap));
}

/** Values of `targetModule` keys at any depth (relation settings, automation actions). */
export function targetModules(v: unknown): string[] {
  const out: string[] = [];
  const visit = (x: unknown): void => {
    if (Array.isArray(x)) x.forEach(visit);
    else if (x && typeof x === 'object') {
      for (const [k, y] of Object.entries(x)) {
        if (k === 'targetModule' && typeof y === 'string') out.push(y);
        else visit(y);
      }
    }
  };
  visit(v);
  return out;
}

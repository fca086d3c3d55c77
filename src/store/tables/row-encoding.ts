// One entity → its row values and its content hash, serialising its raw object once.
//
// The hash is sha256 of canonicalJson(hashable(kind, entity)) — the definition every stored hash
// was made with, so databases written before keep matching. The raw column stores the canonical
// text too (keys sorted: the same object, in a stable order), so the raw object, usually most of
// the row, is serialised once for both instead of twice (it dominated a large pass's CPU).
import type { EntityKind } from '../../domain/entities.js';
import { NOT_PLAIN, canonicalForm, canonicalJson, sha256Hex, sortedKeys } from '../../domain/canonical-json.js';
import { toRow, type EntitySpec, type SqlValue } from './entity-specs.js';

/**
 * Fields the service computes when it answers rather than stores: an activity row's `canRevert` and
 * `revertBlocker` (they flip when later writes block a revert) and a member's live `presence`.
 * A change in them alone is not a new version; otherwise a full pass, which re-reads every row,
 * would record history an incremental pass (which reads each row once) never sees.
 */
interface ReadTimeRule {
  top: readonly string[];
  user?: readonly string[];
}

const READ_TIME_FIELDS: Partial<Record<EntityKind, ReadTimeRule>> = {
  activity: { top: ['canRevert', 'revertBlocker'] },
  member: { top: [], user: ['presence'] },
};

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function without(obj: unknown, drop: readonly string[]): unknown {
  if (!isPlainObject(obj)) return obj;
  // fromEntries defines own properties, so a hostile "__proto__" key stays a plain key
  return Object.fromEntries(Object.entries(obj).filter(([k]) => !drop.includes(k)));
}

/** The reference definition of what the hash covers (the entity, read-time fields left out). */
export function hashable(kind: EntityKind, entity: object): object {
  const rule = READ_TIME_FIELDS[kind];
  const raw = (entity as { raw?: unknown }).raw;
  if (!rule || raw === null || typeof raw !== 'object') return entity;
  let trimmed = without(raw, rule.top) as Record<string, unknown>;
  if (rule.user && trimmed.user && typeof trimmed.user === 'object') {
    trimmed = Object.fromEntries(Object.entries(trimmed).map(([k, v]) => [k, k === 'user' ? without(v, rule.user!) : v]));
  }
  return { ...entity, raw: trimmed };
}

/** Canonical text of `raw` as stored, and as hashed (read-time fields left out), sharing the work. */
function rawTexts(raw: unknown, rule: ReadTimeRule | undefined): { stored: string; hashed: string } {
  if (!rule || !isPlainObject(raw)) {
    const text = canonicalJson(raw);
    return { stored: text, hashed: text };
  }
  const form = canonicalForm(raw);
  if (form !== NOT_PLAIN) {
    const stored = JSON.stringify(form);
    const f = form as Record<string, unknown>;
    return { stored, hashed: cutTopLevel(stored, f, rule) ?? JSON.stringify(leftOut(f, rule)) };
  }
  let stored = '{';
  let hashed = '{';
  for (const k of sortedKeys(raw)) {
    const v = raw[k];
    if (v === undefined) continue;
    const name = JSON.stringify(k);
    const piece = `${name}:${canonicalJson(v)}`;
    stored += `${stored.length > 1 ? ',' : ''}${piece}`;
    if (rule.top.includes(k)) continue;
    const kept = k === 'user' && rule.user && v !== null && typeof v === 'object' ? `${name}:${canonicalJson(without(v, rule.user))}` : piece;
    hashed += `${hashed.length > 1 ? ',' : ''}${kept}`;
  }
  return { stored: `${stored}}`, hashed: `${hashed}}` };
}

/**
 * `text` (JSON.stringify of the canonical form `form`) with the rule's top-level read-time members
 * cut out — the same text JSON.stringify(leftOut(form, rule)) writes, without writing the row a
 * second time. A member `"k":v` is cut where its text occurs exactly once: the top-level one is
 * there, so a single occurrence is it (a nested key, or a hostile key holding a quote, that repeats
 * it makes two); otherwise, or for a rule on nested members, null: the caller writes it out.
 */
function cutTopLevel(text: string, form: Record<string, unknown>, rule: ReadTimeRule): string | null {
  if (rule.user) return null;
  let out = text;
  for (const k of rule.top) {
    const v = form[k];
    if (v === undefined) continue;
    const member = `${JSON.stringify(k)}:${JSON.stringify(v)}`;
    const at = out.indexOf(member);
    if (at < 1 || out.indexOf(member, at + 1) !== -1) return null;
    const end = at + member.length;
    if (out[at - 1] === ',') out = out.slice(0, at - 1) + out.slice(end);
    else if (out[at - 1] === '{') out = out.slice(0, at) + out.slice(out[end] === ',' ? end + 1 : end);
    else return null;
  }
  return out;
}

/** `raw` (in canonical form: see canonicalForm) without its read-time fields, for JSON.stringify:
 * a null-prototype copy, so a "__proto__" key is copied as a plain key, in the same (sorted) order. */
function leftOut(raw: Record<string, unknown>, rule: ReadTimeRule): object {
  const out = Object.create(null) as Record<string, unknown>;
  for (const k of Object.keys(raw)) {
    if (rule.top.includes(k)) continue;
    const v = raw[k];
    out[k] = k === 'user' && rule.user && isPlainObject(v) ? leftOut(v, { top: rule.user }) : v;
  }
  return out;
}

export interface EncodedRow {
  values: SqlValue[];
  hash: string;
}

/** A kind's entity keys as last seen, sorted, each with its JSON name: the normalisers build every
 * entity of a kind with the same keys in the same order, so the sort is done once per kind. */
interface KeyPlan {
  keys: string[];
  sorted: string[];
  names: string[];
}

const keyPlans = new Map<EntityKind, KeyPlan>();

function keyPlan(kind: EntityKind, e: object): KeyPlan {
  const keys = Object.keys(e);
  const plan = keyPlans.get(kind);
  if (plan && plan.keys.length === keys.length) {
    let same = true;
    for (let i = 0; i < keys.length; i++) {
      if (keys[i] !== plan.keys[i]) {
        same = false;
        break;
      }
    }
    if (same) return plan;
  }
  const sorted = sortedKeys(e).slice();
  const next: KeyPlan = { keys, sorted, names: sorted.map((k) => `${JSON.stringify(k)}:`) };
  keyPlans.set(kind, next);
  return next;
}

/** canonicalJson(v), the scalars of an entity's own fields written without a call. */
function fieldJson(v: unknown): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'boolean':
      return v ? 'true' : 'false';
    default:
      return canonicalJson(v);
  }
}

export function encodeRow(kind: EntityKind, spec: EntitySpec, entity: object): EncodedRow {
  const e = entity as Record<string, unknown>;
  const raw = rawTexts(e.raw, READ_TIME_FIELDS[kind]);
  // canonicalJson(hashable(kind, entity)), with the raw text already made
  const { sorted, names } = keyPlan(kind, e);
  let text = '{';
  let first = true;
  for (let i = 0; i < sorted.length; i++) {
    const k = sorted[i]!;
    const v = e[k];
    if (v === undefined) continue;
    text += `${first ? '' : ','}${names[i]}${k === 'raw' ? raw.hashed : fieldJson(v)}`;
    first = false;
  }
  return { values: toRow(spec, entity, e.raw === undefined || e.raw === null ? undefined : raw.stored), hash: sha256Hex(`${text}}`) };
}

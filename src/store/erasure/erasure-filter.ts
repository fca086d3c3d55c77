// What an erasure leaves of one entity: dropped (it is, or belongs to, an erased record or module;
// it is an erased person's membership or grant), scrubbed (an erased person's name, email, id and
// amendment text taken out) or untouched. Pure. The history rewrite (rewrite.ts beside this file) runs every stored
// version through it; the store's writer runs every incoming entity through it, so a sync never
// stores again what was erased, and a rewritten version hashes like the same entity met live.
import type { EntityKind } from '../../domain/entities.js';

/** What replaces an erased person's amendment text (threads stay, replies stay readable). */
export const ERASED_MARKER = '[erased]';

export interface ErasedSet {
  users: ReadonlySet<string>;
  /** Records and their sub-records. */
  records: ReadonlySet<string>;
  modules: ReadonlySet<string>;
  amendments: ReadonlySet<string>;
}

export const emptyErasedSet = (): ErasedSet => ({ users: new Set(), records: new Set(), modules: new Set(), amendments: new Set() });

export const isEmptyErasedSet = (s: ErasedSet): boolean => s.users.size + s.records.size + s.modules.size + s.amendments.size === 0;

/** Text that identifies an erased person: emails and full names (replaced wherever they occur as
 * text), and @-mentions (first name, full name) in amendment messages. */
export interface PersonText {
  texts: Set<string>;
  mentions: Set<string>;
  /** Their amendments' texts, which comment activity rows quote in before/after. */
  said: Set<string>;
}

export type Verdict = { action: 'keep' } | { action: 'drop' } | { action: 'scrub'; entity: Record<string, unknown> };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** The person's identifying strings, learnt from a user summary ({_id, firstName, lastName, email}). */
export function learnPerson(people: Map<string, PersonText>, id: string, first: unknown, last: unknown, email: unknown): void {
  let p = people.get(id);
  if (!p) people.set(id, (p = { texts: new Set(), mentions: new Set(), said: new Set() }));
  const f = str(first)?.trim();
  const l = str(last)?.trim();
  const e = str(email)?.trim();
  if (e && e.length >= 3) p.texts.add(e);
  if (f && l) {
    p.texts.add(`${f} ${l}`);
    p.mentions.add(`@${f} ${l}`);
  }
  if (f && f.length >= 2) p.mentions.add(`@${f}`);
}

/** Learns every erased person's strings from an entity (a member row, user summaries in raw). */
export function learnFrom(kind: EntityKind, entity: object, users: ReadonlySet<string>, people: Map<string, PersonText>): void {
  if (users.size === 0) return;
  const e = entity as Obj;
  if (kind === 'member' && typeof e.userId === 'string' && users.has(e.userId)) learnPerson(people, e.userId, e.firstName, e.lastName, e.email);
  if (kind === 'amendment' && typeof e.userId === 'string' && users.has(e.userId)) {
    learnPerson(people, e.userId, null, null, null);
    const raw = isObj(e.raw) ? e.raw.message : null;
    for (const m of [e.message, raw]) if (typeof m === 'string' && m.trim() !== '' && m !== ERASED_MARKER) people.get(e.userId)!.said.add(m);
  }
  const walk = (v: unknown, depth: number): void => {
    if (depth > 6) return;
    if (Array.isArray(v)) for (const x of v) walk(x, depth + 1);
    else if (isObj(v)) {
      if (typeof v._id === 'string' && users.has(v._id) && ('email' in v || 'firstName' in v)) learnPerson(people, v._id, v.firstName, v.lastName, v.email);
      for (const x of Object.values(v)) walk(x, depth + 1);
    }
  };
  walk(e.raw, 0);
}

interface Scrubber {
  users: ReadonlySet<string>;
  records: ReadonlySet<string>;
  texts: string[];
  mentions: string[];
  changed: boolean;
}

function replaceAll(s: string, needles: string[], by: string): string {
  let out = s;
  for (const n of needles) if (out.includes(n)) out = out.split(n).join(by);
  return out;
}

/** A string: identifying text replaced; a JSON array in a string (person cell values) cleaned. */
function scrubString(s: string, sc: Scrubber): string {
  let out = replaceAll(replaceAll(s, sc.texts, ERASED_MARKER), sc.mentions, `@${ERASED_MARKER}`);
  if ((out.startsWith('[') || out.startsWith('{')) && (hasAny(out, sc.users) || hasAny(out, sc.records))) {
    try {
      const parsed: unknown = JSON.parse(out);
      const cleaned = scrubValue(parsed, sc, 0);
      out = JSON.stringify(cleaned === undefined ? null : cleaned);
    } catch {
      // not JSON: plain text, already handled
    }
  }
  if (out !== s) sc.changed = true;
  return out;
}

const hasAny = (s: string, ids: ReadonlySet<string>): boolean => {
  for (const id of ids) if (s.includes(id)) return true;
  return false;
};

/** Any JSON value: erased ids out of arrays, erased people's summaries cut to their id, texts out. */
function scrubValue(v: unknown, sc: Scrubber, depth: number): unknown {
  if (typeof v === 'string') return scrubString(v, sc);
  if (depth > 12 || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (const x of v) {
      if (typeof x === 'string' && (sc.users.has(x) || sc.records.has(x))) {
        sc.changed = true;
        continue;
      }
      // a relation/reference item naming an erased record
      if (isObj(x) && ((typeof x.recordId === 'string' && sc.records.has(x.recordId)) || (typeof x._id === 'string' && sc.records.has(x._id)))) {
        sc.changed = true;
        continue;
      }
      out.push(scrubValue(x, sc, depth + 1));
    }
    return out;
  }
  const o = v as Obj;
  if (typeof o._id === 'string' && sc.users.has(o._id) && ('email' in o || 'firstName' in o || 'lastName' in o)) {
    sc.changed = true;
    return { _id: o._id };
  }
  const out: Obj = {};
  for (const [k, x] of Object.entries(o)) {
    // the id fields name who did something; an erased person's id there is kept (the ledger holds it)
    out[k] = k === '_id' ? x : scrubValue(x, sc, depth + 1);
  }
  return out;
}

interface Words {
  sig: string;
  texts: string[];
  mentions: string[];
  said: ReadonlySet<string>;
  /** What makes an entity worth a closer look: erased ids, texts and mentions. */
  words: string[];
}

const wordCache = new WeakMap<ErasedSet, Words>();

/** The erased persons' strings, longest first ("@Grace Hopper" before "@Grace"); cached per set
 * until `people` learns more. */
function wordsOf(set: ErasedSet, people: ReadonlyMap<string, PersonText>): Words {
  let sig = '';
  for (const u of set.users) {
    const p = people.get(u);
    sig += p ? `${p.texts.size}.${p.mentions.size}.${p.said.size};` : '-;';
  }
  const hit = wordCache.get(set);
  if (hit && hit.sig === sig) return hit;
  const texts: string[] = [];
  const mentions: string[] = [];
  const said = new Set<string>();
  for (const u of set.users) {
    const p = people.get(u);
    if (!p) continue;
    texts.push(...p.texts);
    mentions.push(...p.mentions);
    for (const t of p.said) said.add(t);
  }
  texts.sort((a, b) => b.length - a.length);
  mentions.sort((a, b) => b.length - a.length);
  const w: Words = { sig, texts, mentions, said, words: [...set.users, ...set.records, ...texts, ...mentions] };
  wordCache.set(set, w);
  return w;
}

/** Whether an activity row's before/after (JSON text, or raw's plain value) is one of `said`. */
function quotes(e: Obj, said: ReadonlySet<string>): boolean {
  if (said.size === 0) return false;
  const raw = isObj(e.raw) ? e.raw : {};
  for (const v of [e.before, e.after]) {
    if (typeof v !== 'string') continue;
    try {
      if (said.has(JSON.parse(v) as string)) return true;
    } catch {
      if (said.has(v)) return true;
    }
  }
  return (typeof raw.before === 'string' && said.has(raw.before)) || (typeof raw.after === 'string' && said.has(raw.after));
}

/** Whether any string inside `v` contains one of `words` (no copy made). */
function holdsAny(v: unknown, words: string[], depth: number): boolean {
  if (typeof v === 'string') {
    for (const w of words) if (v.includes(w)) return true;
    return false;
  }
  if (v === null || typeof v !== 'object' || depth > 12) return false;
  if (Array.isArray(v)) {
    for (const x of v) if (holdsAny(x, words, depth + 1)) return true;
    return false;
  }
  for (const x of Object.values(v as Obj)) if (holdsAny(x, words, depth + 1)) return true;
  return false;
}

/**
 * The verdict for one entity. `people` holds what is known of erased persons' strings (learnFrom);
 * the entity itself is not modified.
 */
export function judge(kind: EntityKind, entity: object, set: ErasedSet, people: ReadonlyMap<string, PersonText>): Verdict {
  const e = entity as Obj;
  const rec = (v: unknown): boolean => typeof v === 'string' && set.records.has(v);
  const mod = (v: unknown): boolean => typeof v === 'string' && set.modules.has(v);
  switch (kind) {
    case 'module':
      if (mod(e.id)) return { action: 'drop' };
      break;
    case 'collection':
    case 'column':
    case 'automation':
      if (mod(e.moduleId)) return { action: 'drop' };
      break;
    case 'record':
      if (rec(e.id) || rec(e.parentRecordId) || mod(e.moduleId)) return { action: 'drop' };
      break;
    case 'cell':
      if (rec(e.recordId)) return { action: 'drop' };
      break;
    case 'amendment':
      if (rec(e.recordId) || mod(e.moduleId) || (typeof e.id === 'string' && set.amendments.has(e.id))) return { action: 'drop' };
      break;
    case 'activity':
      if (rec(e.recordId) || mod(e.moduleId)) return { action: 'drop' };
      break;
    case 'reference':
      if (rec(e.recordId) || mod(e.moduleId)) return { action: 'drop' };
      break;
    case 'member':
    case 'moduleAccess':
      if (typeof e.userId === 'string' && set.users.has(e.userId)) return { action: 'drop' };
      if (kind === 'moduleAccess' && mod(e.moduleId)) return { action: 'drop' };
      break;
    default:
      break;
  }
  if (set.users.size === 0 && set.records.size === 0) return { action: 'keep' };
  const { texts, mentions, said: saidSet, words } = wordsOf(set, people);
  if (!holdsAny(e, words, 0) && !(kind === 'activity' && quotes(e, saidSet))) return { action: 'keep' };
  const sc: Scrubber = { users: set.users, records: set.records, texts, mentions, changed: false };
  const out: Obj = {};
  for (const [k, v] of Object.entries(e)) {
    if (k === 'id' || k === 'userId' || k === 'workspaceId' || k === 'moduleId' || k === 'recordId' || k === 'parentId' || k === 'parentRecordId') out[k] = v;
    else out[k] = scrubValue(v, sc, 0);
  }
  if (kind === 'activity') quotedComments(e, out, set, saidSet, sc);
  if (kind === 'amendment') {
    const raw = isObj(out.raw) ? { ...out.raw } : null;
    if (typeof e.userId === 'string' && set.users.has(e.userId)) {
      if (out.message !== ERASED_MARKER) sc.changed = true;
      out.message = ERASED_MARKER;
      if (raw && 'message' in raw) raw.message = ERASED_MARKER;
    } else if (mentions.length) {
      const m = replaceAll(String(out.message ?? ''), mentions, `@${ERASED_MARKER}`);
      if (m !== out.message) {
        sc.changed = true;
        out.message = m;
        if (raw && typeof raw.message === 'string') raw.message = replaceAll(raw.message, mentions, `@${ERASED_MARKER}`);
      }
    }
    if (raw) out.raw = raw;
  }
  return sc.changed ? { action: 'scrub', entity: out } : { action: 'keep' };
}

/**
 * A comment activity row quotes the amendment text in before/after (JSON text, and again in raw):
 * an erased person's comment rows lose it, and so does any row quoting one of their texts whole.
 */
function quotedComments(e: Obj, out: Obj, set: ErasedSet, said: ReadonlySet<string>, sc: Scrubber): void {
  const own = typeof e.userId === 'string' && set.users.has(e.userId) && typeof e.action === 'string' && e.action.startsWith('comment');
  const quotes = (v: unknown): boolean => typeof v === 'string' && v !== ERASED_MARKER && (own || said.has(v));
  const raw = isObj(out.raw) ? { ...out.raw } : null;
  for (const k of ['before', 'after'] as const) {
    const text = out[k];
    if (typeof text === 'string') {
      let decoded: unknown;
      try {
        decoded = JSON.parse(text);
      } catch {
        decoded = text;
      }
      if (quotes(decoded)) {
        out[k] = JSON.stringify(ERASED_MARKER);
        sc.changed = true;
      }
    }
    if (raw && quotes(raw[k])) {
      raw[k] = ERASED_MARKER;
      sc.changed = true;
    }
  }
  if (raw) out.raw = raw;
}

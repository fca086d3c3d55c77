// What an erasure touches, decided without SQL: the records a --record takes with it (its
// sub-records, through every version's parent link), what a --module takes, the strings the
// rewrite looks for in a row before judging it, and how many touched versions each snapshot shows.
import type { ErasedSet, PersonText } from './erasure-filter.js';
import type { ErasedId, ErasureKind } from './erasure-ledger.js';

export interface Target {
  kind: ErasureKind;
  id: string;
}

/** One record as some version stored it (a record may move: every version counts). */
export interface RecordLink {
  id: string;
  parentRecordId: string | null;
  moduleId: string;
  workspaceId: string;
}

/** Erasing `roots` takes every record that was, in any version, beneath one of them. */
export function recordClosure(roots: readonly string[], links: readonly RecordLink[]): ErasedId[] {
  const children = new Map<string, string[]>();
  const where = new Map<string, RecordLink>();
  for (const l of links) {
    if (!where.has(l.id)) where.set(l.id, l);
    if (l.parentRecordId) {
      const list = children.get(l.parentRecordId) ?? [];
      if (!list.includes(l.id)) list.push(l.id);
      children.set(l.parentRecordId, list);
    }
  }
  const seen = new Set<string>();
  const queue = [...roots];
  while (queue.length) {
    const id = queue.shift()!;
    if (seen.has(id)) continue;
    seen.add(id);
    for (const c of children.get(id) ?? []) queue.push(c);
  }
  return [...seen].sort().map((id) => ({ kind: 'record' as const, entityId: id, moduleId: where.get(id)?.moduleId ?? null, workspaceId: where.get(id)?.workspaceId ?? null }));
}

/** Erasing a module takes the module and every record that ever lived in it (and beneath those). */
export function moduleSelection(moduleId: string, workspaceId: string | null, links: readonly RecordLink[]): ErasedId[] {
  const inModule = links.filter((l) => l.moduleId === moduleId).map((l) => l.id);
  return [{ kind: 'module', entityId: moduleId, moduleId, workspaceId }, ...recordClosure(inModule, links)];
}

/** The erased set one erasure (with its selected ids) adds to an existing one. */
export function withTarget(base: ErasedSet, target: Target, ids: readonly ErasedId[]): ErasedSet {
  const users = new Set(base.users);
  const records = new Set(base.records);
  const modules = new Set(base.modules);
  const amendments = new Set(base.amendments);
  if (target.kind === 'user') users.add(target.id);
  for (const x of ids) (x.kind === 'record' ? records : x.kind === 'module' ? modules : amendments).add(x.entityId);
  return { users, records, modules, amendments };
}

/**
 * Strings whose presence in a row's raw JSON makes it a candidate (the judge decides): erased ids
 * and the persons' identifying texts (their amendments' texts are looked for in activity's before/after
 * only). Ids shorter than 4 characters would match everything.
 */
export function needles(set: ErasedSet, people: ReadonlyMap<string, PersonText>): string[] {
  const out = new Set<string>();
  for (const s of [set.users, set.records, set.modules, set.amendments]) for (const id of s) if (id.length >= 4) out.add(id);
  for (const u of set.users) {
    const p = people.get(u);
    if (!p) continue;
    for (const t of p.texts) out.add(t);
    for (const m of p.mentions) out.add(m);
  }
  return [...out].sort();
}

/** How many touched versions each snapshot shows: a version [from, to) is in S when from <= S < to. */
export function perSnapshot(intervals: ReadonlyArray<readonly [from: number, to: number | null]>, snapshotIds: readonly number[]): Record<number, number> {
  const ids = [...snapshotIds].sort((a, b) => a - b);
  const delta = new Array<number>(ids.length + 1).fill(0);
  const firstAtOrAfter = (x: number): number => {
    let lo = 0;
    let hi = ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ids[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  for (const [from, to] of intervals) {
    delta[firstAtOrAfter(from)]! += 1;
    if (to !== null) delta[firstAtOrAfter(to)]! -= 1;
  }
  const out: Record<number, number> = {};
  let run = 0;
  ids.forEach((id, i) => {
    run += delta[i]!;
    if (run > 0) out[id] = run;
  });
  return out;
}

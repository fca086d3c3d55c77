// Matching two module trees modulo ids: a restored module has new ids for everything, so its
// objects are paired with the snapshot's by what they are (names, scopes, order), not by id.
// The result is an id map (a-side id → b-side id) that diff then uses as if ids were equal.

import type { Amendment, BoardRecord } from '../../domain/entities.js';
import { threadOrder } from '../engine/sibling-order.js';
import type { ModuleTree } from '../engine/tree.js';

type Keyed<T> = { key: string; item: T };

/** Pairs items that share a key, in the order given (position order), into `map`. */
function pairByKey<T extends { id: string }>(a: Keyed<T>[], b: Keyed<T>[], map: Map<string, string>): void {
  const pool = new Map<string, T[]>();
  for (const { key, item } of b) {
    const list = pool.get(key) ?? [];
    list.push(item);
    pool.set(key, list);
  }
  for (const { key, item } of a) {
    if (map.has(item.id)) continue;
    const next = pool.get(key)?.shift();
    if (next) map.set(item.id, next.id);
  }
}

function byPosition<T extends { position: number | null; id: string }>(list: T[]): T[] {
  return [...list].sort((x, y) => (x.position ?? Infinity) - (y.position ?? Infinity) || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
}

/**
 * Derives a → b id pairs by shape. `seed` (e.g. a restore journal) wins over shape matching, so a
 * journal-backed comparison is exact and shape only fills what the journal does not name.
 */
export function matchByShape(a: ModuleTree, b: ModuleTree, seed?: ReadonlyMap<string, string>): Map<string, string> {
  const map = new Map<string, string>(seed ?? []);
  const m = (id: string | null): string => (id === null ? '' : (map.get(id) ?? `?${id}`));
  if (!map.has(a.module.id)) map.set(a.module.id, b.module.id);

  pairByKey(
    byPosition(a.collections).map((c) => ({ key: c.name, item: c })),
    byPosition(b.collections).map((c) => ({ key: c.name, item: c })),
    map,
  );
  pairByKey(
    byPosition(a.columns).map((c) => ({ key: `${c.scope}\u0000${c.name}`, item: c })),
    byPosition(b.columns).map((c) => ({ key: `${c.scope}\u0000${c.name}`, item: c })),
    map,
  );

  const tops = (t: ModuleTree): BoardRecord[] => byPosition(t.records.filter((r) => r.parentRecordId === null));
  const subs = (t: ModuleTree): BoardRecord[] => byPosition(t.records.filter((r) => r.parentRecordId !== null));
  pairByKey(
    tops(a).map((r) => ({ key: `${m(r.collectionId)}\u0000${r.name}`, item: r })),
    tops(b).map((r) => ({ key: `${r.collectionId ?? ''}\u0000${r.name}`, item: r })),
    map,
  );
  pairByKey(
    subs(a).map((r) => ({ key: `${m(r.parentRecordId)}\u0000${r.name}`, item: r })),
    subs(b).map((r) => ({ key: `${r.parentRecordId ?? ''}\u0000${r.name}`, item: r })),
    map,
  );

  // Amendments: the nth amendment of a record's thread pairs with the nth of its counterpart's.
  const threads = (t: ModuleTree): Map<string, Amendment[]> => {
    const out = new Map<string, Amendment[]>();
    for (const x of t.amendments) out.set(x.recordId, [...(out.get(x.recordId) ?? []), x]);
    for (const [k, v] of out) out.set(k, threadOrder(v));
    return out;
  };
  const bThreads = threads(b);
  for (const [recordId, list] of threads(a)) {
    const other = bThreads.get(m(recordId)) ?? [];
    list.forEach((x, i) => {
      if (!map.has(x.id) && other[i]) map.set(x.id, other[i].id);
    });
  }

  pairByKey(
    a.automations.map((x) => ({ key: x.name, item: x })),
    b.automations.map((x) => ({ key: x.name, item: x })),
    map,
  );
  return map;
}

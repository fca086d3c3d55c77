// The order columns are created in: siblings tied in position one after another in the order the
// service listed them, and a column whose settings name another column of the module (a reference's
// `via`, a relation to its own module) after that column. Both constraints are kept in one chain per
// connected group, so the groups still run concurrently. Pure.

import type { Column } from '../../domain/entities.js';
import { effectivePosition, serviceOrder, type Sibling } from '../engine/sibling-order.js';

export interface ColumnOrder<C> {
  /** Every column, in the order the plan lists its steps (chains take their members in this order). */
  ordered: C[];
  /** Column id → chain key, for columns that must wait for another. */
  chainOf: Map<string, string>;
  /** Tied columns that cannot keep their place: they name a column listed after them. */
  displaced: { column: C; names: C }[];
}

export function orderColumns<C extends Pick<Column, 'id' | 'scope' | 'position'> & Sibling>(columns: readonly C[], dependsOn: (c: C) => string[]): ColumnOrder<C> {
  const sorted = [...serviceOrder(columns.filter((c) => c.scope === 'record')), ...serviceOrder(columns.filter((c) => c.scope !== 'record'))];
  const rank = new Map(sorted.map((c, i) => [c.id, i]));
  const byId = new Map(sorted.map((c) => [c.id, c]));
  const tieKey = (c: C): string => `${c.scope}@${effectivePosition(c)}`;

  // union-find over ties and dependencies
  const parent = new Map(sorted.map((c) => [c.id, c.id]));
  const find = (x: string): string => {
    let r = x;
    while (parent.get(r) !== r) r = parent.get(r)!;
    parent.set(x, r);
    return r;
  };
  const union = (a: string, b: string): void => {
    parent.set(find(a), find(b));
  };
  const firstOfTie = new Map<string, string>();
  for (const c of sorted) {
    const k = tieKey(c);
    if (firstOfTie.has(k)) union(c.id, firstOfTie.get(k)!);
    else firstOfTie.set(k, c.id);
  }
  const deps = new Map(sorted.map((c) => [c.id, dependsOn(c).filter((d) => byId.has(d) && d !== c.id)]));
  for (const [id, ds] of deps) for (const d of ds) union(id, d);

  // In the service's order, each column after the columns it names: those not placed yet are
  // pulled forward (depth first). Only a named column tied with the one naming it and listed after
  // it moves a tie out of order: that column is reported as displaced.
  const placed = new Set<string>();
  const visiting = new Set<string>();
  const ordered: C[] = [];
  const displaced: { column: C; names: C }[] = [];
  const place = (c: C): void => {
    if (placed.has(c.id) || visiting.has(c.id)) return; // a cycle: the caller removed those already
    visiting.add(c.id);
    for (const d of deps.get(c.id)!) {
      const named = byId.get(d)!;
      if (!placed.has(d) && tieKey(named) === tieKey(c) && rank.get(d)! > rank.get(c.id)!) displaced.push({ column: c, names: named });
      place(named);
    }
    visiting.delete(c.id);
    placed.add(c.id);
    ordered.push(c);
  };
  for (const c of sorted) place(c);
  const members = new Map<string, number>();
  for (const c of sorted) members.set(find(c.id), (members.get(find(c.id)) ?? 0) + 1);
  const chainOf = new Map<string, string>();
  for (const c of sorted) if (members.get(find(c.id))! > 1) chainOf.set(c.id, `columns:${find(c.id)}`);
  return { ordered, chainOf, displaced };
}

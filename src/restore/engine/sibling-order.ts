// The order people see: the service lists siblings by position, then by creation time, so siblings
// that share a position (the deployed service gives every new column and collection position 0)
// come back in the order the restore creates them. Pure: sorts a list the way the service does and
// names, for each sibling that shares its position with another, the chain its create must join.
// A thread of amendments is listed oldest first.

import type { Amendment } from '../../domain/entities.js';

export interface Sibling {
  id: string;
  position: number | null;
  createdAt?: string | null;
  /** The object as the service sent it: collections and columns carry createdAt only there
   * (the deployed service sends it; the published interface does not list it). */
  raw?: Record<string, unknown>;
  /** Collections and columns: the order the service listed ties in (see Column.tieRank). */
  tieRank?: number | null;
}

/** When the sibling was created, as far as the snapshot knows. */
export function createdAtOf(s: { createdAt?: string | null; raw?: Record<string, unknown> }): string | null {
  if (typeof s.createdAt === 'string') return s.createdAt;
  const raw = s.raw?.['createdAt'];
  return typeof raw === 'string' ? raw : null;
}

/** The service counts a missing position as 0. */
export function effectivePosition(s: { position: number | null }): number {
  return typeof s.position === 'number' ? s.position : 0;
}

/** Creation time order; an unknown time sorts last. Equal times keep the input order (stable). */
function byCreation(a: Omit<Sibling, 'id' | 'position'>, b: Omit<Sibling, 'id' | 'position'>): number {
  const x = createdAtOf(a) ?? '\uffff';
  const y = createdAtOf(b) ?? '\uffff';
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Within a tie: the listing's rank when the snapshot kept it for both, else creation time. */
function withinTie(a: Sibling, b: Sibling): number {
  if (typeof a.tieRank === 'number' && typeof b.tieRank === 'number') return a.tieRank - b.tieRank;
  return byCreation(a, b);
}

/** Sorted as the service lists them: position, then creation order, then the input order. */
export function serviceOrder<T extends Sibling>(list: readonly T[]): T[] {
  return [...list].sort((a, b) => effectivePosition(a) - effectivePosition(b) || withinTie(a, b));
}

/** Sorted by creation time alone (lists the service orders that way, e.g. automations). */
export function creationOrder<T extends Omit<Sibling, 'id' | 'position'>>(list: readonly T[]): T[] {
  return [...list].sort(byCreation);
}

/**
 * For every sibling sharing its list and position with another: the chain its create joins, so a
 * tie is created one after another in `serviceOrder`. Siblings alone at their position get none and
 * are created concurrently. `group` names the list a sibling belongs to (its parent, its scope).
 */
export function tieChains<T extends Sibling>(list: readonly T[], group: (s: T) => string, prefix: string): Map<string, string> {
  const classes = new Map<string, string[]>();
  for (const s of list) {
    const key = `${prefix}:${group(s)}@${effectivePosition(s)}`;
    classes.set(key, [...(classes.get(key) ?? []), s.id]);
  }
  const out = new Map<string, string>();
  for (const [key, ids] of classes) if (ids.length > 1) for (const id of ids) out.set(id, key);
  return out;
}

/** Oldest first, as the service lists a thread; ties broken by id (ids grow with time). */
export function threadOrder(list: Amendment[]): Amendment[] {
  return [...list].sort((x, y) => (x.createdAt ?? '').localeCompare(y.createdAt ?? '') || x.id.localeCompare(y.id));
}

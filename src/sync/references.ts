// Resolved relation/reference cells of a module: one request per module that has such columns.
// Their display values come from other modules' records, so an incremental pass re-reads them for
// the modules it crawls and for every module whose relation columns point at one of those.

import type { Column, ResolvedReference } from '../domain/entities.js';
import type { ServiceClient } from '../api/port.js';
import type { Listing } from '../store/port.js';

export function hasReferenceColumns(columns: readonly Column[]): boolean {
  return columns.some((c) => c.type === 'relation' || c.type === 'reference');
}

/** Modules that the relation columns of a module point at. */
export function referencedModules(columns: readonly Column[]): Set<string> {
  const out = new Set<string>();
  for (const c of columns) {
    const target = c.settings?.targetModule;
    if (c.type === 'relation' && typeof target === 'string') out.add(target);
  }
  return out;
}

export async function readReferences(
  client: ServiceClient,
  moduleId: string,
  columns: readonly Column[],
): Promise<{ references: ResolvedReference[]; listing: Listing }> {
  const references: ResolvedReference[] = [];
  if (hasReferenceColumns(columns)) {
    const map = await client.getReferences(moduleId);
    for (const [recordId, byColumn] of Object.entries(map)) {
      if (byColumn === null || typeof byColumn !== 'object') continue;
      for (const [columnId, value] of Object.entries(byColumn)) {
        const v = (value !== null && typeof value === 'object' ? value : { display: value }) as Record<string, unknown>;
        references.push({ moduleId, recordId, columnId, items: v.items ?? null, display: v.display ?? null, raw: v });
      }
    }
  }
  return { references, listing: { kind: 'reference', moduleId, ids: references.map((r) => `${r.recordId}/${r.columnId}`) } };
}

/** True when a module's relation columns point at one of `changed`. */
export function referencesStale(columns: readonly Column[], changed: ReadonlySet<string>): boolean {
  for (const target of referencedModules(columns)) if (changed.has(target)) return true;
  return false;
}

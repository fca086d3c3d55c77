// Narrows a module's differences to a rollback's selection (--column, --record, --collection,
// --kinds), so `wbsync diff` after a rollback can be limited to what the rollback was about. Pure:
// entries are placed through the two trees they came from (b-side ids of recreated objects through
// the id map, back to the snapshot's).

import type { EntityDiff } from './trees.js';
import type { RollbackKind } from '../rollback/selection.js';
import type { ModuleTree } from '../engine/tree.js';

export interface DiffSelection {
  kinds: ReadonlySet<RollbackKind> | null;
  columns: ReadonlySet<string> | null;
  records: ReadonlySet<string> | null;
  collections: ReadonlySet<string> | null;
}

const KIND_OF: Partial<Record<EntityDiff['entity'], RollbackKind>> = { cell: 'cells', record: 'records', column: 'columns', collection: 'collections', amendment: 'amendments' };

export function isNarrowed(s: DiffSelection): boolean {
  return !!(s.kinds || s.columns || s.records || s.collections);
}

export function filterEntries(entries: EntityDiff[], a: ModuleTree, b: ModuleTree, idMap: ReadonlyMap<string, string>, sel: DiffSelection): EntityDiff[] {
  if (!isNarrowed(sel)) return entries;
  const back = new Map([...idMap].map(([o, n]) => [n, o]));
  const old = (id: string | null | undefined): string | null => (id == null ? null : (back.get(id) ?? id));
  const records = new Map([...b.records, ...a.records].map((r) => [old(r.id)!, { parent: old(r.parentRecordId), collection: old(r.collectionId) }]));
  // an id may stand on both sides for different things (a cell of a deleted column is kept by the
  // deployed service with no column): 'added' entries are placed by the b side, the rest by a
  const cellsOf = (t: ModuleTree) => new Map(t.cells.map((c) => [c.id, { record: old(c.recordId)!, column: old(c.columnId) }]));
  const amendmentsOf = (t: ModuleTree) => new Map(t.amendments.map((n) => [n.id, old(n.recordId)!]));
  const [cellsA, cellsB, amendmentsA, amendmentsB] = [cellsOf(a), cellsOf(b), amendmentsOf(a), amendmentsOf(b)];
  const topCollection = (recordId: string): string | null => {
    const r = records.get(recordId);
    return r?.parent ? (records.get(r.parent)?.collection ?? null) : (r?.collection ?? null);
  };
  const recordIn = (recordId: string): boolean => {
    if (sel.records && !sel.records.has(recordId) && !sel.records.has(records.get(recordId)?.parent ?? '')) return false;
    if (sel.collections && !sel.collections.has(topCollection(recordId) ?? '')) return false;
    return true;
  };
  return entries.filter((e) => {
    const kind = KIND_OF[e.entity];
    if (!kind || (sel.kinds && !sel.kinds.has(kind))) return false;
    const id = e.change === 'added' ? (old(e.id) ?? e.id) : e.id;
    switch (e.entity) {
      case 'cell': {
        const c = (e.change === 'added' ? cellsB : cellsA).get(e.id);
        if (!c) return false;
        return (!sel.columns || sel.columns.has(c.column ?? '')) && recordIn(c.record);
      }
      case 'amendment': {
        const r = (e.change === 'added' ? amendmentsB : amendmentsA).get(e.id);
        return !sel.columns && r !== undefined && recordIn(r);
      }
      case 'record':
        return !sel.columns && recordIn(id);
      case 'column':
        return !sel.records && !sel.collections && (!sel.columns || sel.columns.has(id));
      case 'collection':
        return !sel.records && !sel.columns && (!sel.collections || sel.collections.has(id));
      default:
        return false;
    }
  });
}

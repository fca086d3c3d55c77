// Which objects of the module a rollback's selection takes in (--kinds, --column, --records,
// --collections, what the feed shows changed): one predicate per entity kind, for the planners.

import type { Amendment, BoardRecord } from '../../domain/entities.js';
import type { RollbackSelection } from '../rollback-selection.js';

export interface Selected {
  inRecords(recordId: string): boolean;
  inCollections(recordId: string): boolean;
  record(id: string): boolean;
  /** With a feed selection, only the fields its rows changed (a person's other edits stay). */
  field(id: string, field: string): boolean;
  cell(recordId: string, columnId: string): boolean;
  column(id: string): boolean;
  collection(id: string): boolean;
  amendment(a: Amendment): boolean;
  /** A record the selection would take in but for --kinds leaving records out. */
  recordButForKinds(id: string): boolean;
}

export function selectionOf(sel: RollbackSelection, recordOf: (id: string) => BoardRecord | undefined, topOf: (id: string) => BoardRecord | undefined): Selected {
  const inRecords = (recordId: string): boolean => {
    if (!sel.records) return true;
    const r = recordOf(recordId);
    return sel.records.has(recordId) || (!!r?.parentRecordId && sel.records.has(r.parentRecordId));
  };
  const inCollections = (recordId: string): boolean => {
    if (!sel.collections) return true;
    const top = topOf(recordId);
    return !!top?.collectionId && sel.collections.has(top.collectionId);
  };
  const recordInScope = (id: string): boolean => inRecords(id) && inCollections(id) && !sel.columns && (!sel.touched || sel.touched.records.has(id));
  return {
    inRecords,
    inCollections,
    record: (id) => sel.kinds.has('records') && recordInScope(id),
    recordButForKinds: (id) => !sel.kinds.has('records') && recordInScope(id),
    field: (id, field) => !sel.touched || sel.touched.recordFields.get(id)?.has(field) === true,
    cell: (recordId, columnId) =>
      sel.kinds.has('cells') && inRecords(recordId) && inCollections(recordId) && (!sel.columns || sel.columns.has(columnId)) && (!sel.touched || sel.touched.cells.has(`${recordId}|${columnId}`)),
    column: (id) => sel.kinds.has('columns') && !sel.records && !sel.collections && (!sel.columns || sel.columns.has(id)) && (!sel.touched || sel.touched.columns.has(id)),
    collection: (id) => sel.kinds.has('collections') && !sel.records && !sel.columns && (!sel.collections || sel.collections.has(id)) && (!sel.touched || sel.touched.collections.has(id)),
    amendment: (a) => sel.kinds.has('amendments') && inRecords(a.recordId) && inCollections(a.recordId) && !sel.columns && (!sel.touched || sel.touched.records.has(a.recordId)),
  };
}

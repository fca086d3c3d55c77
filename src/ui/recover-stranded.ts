// The rollback preview's stand-in for the command's lookup by id of the records of a deleted
// collection (restore/rollback/rollback.ts, findUnlisted). The deployed service leaves a deleted
// collection's top-level records (and their sub-records) stranded: no listing shows them, so no
// backup holds them after the delete, but they answer by id, and the rollback moves them back into
// the collection's copy with their ids, cells and threads. The published interface deletes them
// with the collection, and the rollback makes them anew. The database cannot ask; the feed's row
// for the delete tells the two apart: the published interface's names the collection's id, the
// deployed service's names none (observed-behaviour.md). Where a row names the id, the records
// are made anew; otherwise they count as found, as the dry run then finds them.
//
// The command reads a found record's cells and notes from the service: what they were when the
// collection was deleted, which may be later than the snapshot rolled back to (someone set a value
// in between). The preview stands in the last ones the backup held for that record (the last
// complete snapshot holding it), so such an edit is put back in the preview as in the dry run. Only
// an edit made after the last pass before the delete is missed: no backup saw it.

import type { Activity, Amendment, BoardRecord, Cell } from '../domain/entities.js';
import type { FoundBy, ModuleTree } from '../restore/index.js';
import type { Store } from '../store/port.js';

/** A record's cells and notes as the backup last held them, or null if no complete snapshot did. */
export type LastHeld = (recordId: string) => { cells: Cell[]; amendments: Amendment[] } | null;

/** LastHeld read from `store`: the latest complete snapshot holding the record. */
export function lastHeldIn(store: Store): LastHeld {
  return (recordId) => {
    const at = store.snapshotsHolding('record', recordId).at(-1);
    const state = at === undefined ? null : store.stateAt(at);
    return state ? { cells: state.cellsOfRecord(recordId), amendments: state.amendmentsOfRecord(recordId) } : null;
  };
}

/** The records the command would find by id, put into `after` (which stands in for the live
 * module too) as it puts them into its live tree: the snapshot's record, with the cells and
 * amendments the backup last held for it (the snapshot's when none is later). */
export function strandedRecords(base: ModuleTree, after: ModuleTree, feed: () => readonly Activity[], lastHeld: LastHeld): Map<string, FoundBy> {
  const found = new Map<string, FoundBy>();
  const liveCollections = new Set(after.collections.map((c) => c.id));
  // (no collection gone: nothing to look at — the preview of a big module pays nothing for this)
  if (base.collections.every((c) => liveCollections.has(c.id))) return found;
  const liveRecords = new Set(after.records.map((r) => r.id));
  const tops = base.records.filter((r) => r.parentRecordId === null && !liveRecords.has(r.id) && r.collectionId !== null && !liveCollections.has(r.collectionId));
  if (!tops.length) return found;
  const deletedWithRecords = new Set(
    feed()
      .filter((a) => a.action === 'collection_deleted' && a.moduleId === base.module.id && a.collectionId !== null)
      .map((a) => a.collectionId!),
  );
  const take = (r: BoardRecord): void => {
    after.records.push(r);
    found.set(r.id, 'stranded');
  };
  for (const r of tops) if (!deletedWithRecords.has(r.collectionId!)) take(r);
  for (const r of base.records) if (r.parentRecordId !== null && !liveRecords.has(r.id) && found.has(r.parentRecordId)) take(r);
  if (found.size) {
    const cells: Cell[] = [];
    const amendments: Amendment[] = [];
    for (const id of found.keys()) {
      const held = lastHeld(id);
      cells.push(...(held ? held.cells : base.cells.filter((c) => c.recordId === id)));
      amendments.push(...(held ? held.amendments : base.amendments.filter((a) => a.recordId === id)));
    }
    after.cells = [...after.cells.filter((c) => !found.has(c.recordId)), ...cells];
    after.amendments = [...after.amendments.filter((a) => !found.has(a.recordId)), ...amendments];
  }
  return found;
}

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
import { lastSnapshotsHolding } from '../store/read/index.js';
import type { Store } from '../store/port.js';

/** The cells and notes the backup last held of each of some records (none for a record no complete
 * snapshot held). */
export type LastHeld = (recordIds: readonly string[]) => Map<string, { cells: Cell[]; amendments: Amendment[] }>;

/** LastHeld read from `store`: the latest complete snapshot holding each record. */
export function lastHeldIn(store: Store): LastHeld {
  return (recordIds) => {
    const out = new Map<string, { cells: Cell[]; amendments: Amendment[] }>();
    // the records by the snapshot that last held them (a collection's records were last held by
    // the same pass): one read of their cells and notes per snapshot, not one per record
    const last = lastSnapshotsHolding(store.db, recordIds);
    const bySnapshot = new Map<number, string[]>();
    for (const [id, at] of last) (bySnapshot.get(at) ?? bySnapshot.set(at, []).get(at)!).push(id);
    const held = new Map<string, { cells: Cell[]; amendments: Amendment[] }>();
    for (const [at, ids] of bySnapshot) {
      const state = store.stateAt(at);
      if (!state) continue;
      const content = state.contentOfRecords(ids);
      for (const id of ids) held.set(id, content.get(id) ?? { cells: [], amendments: [] });
    }
    // (in the order the records came, as one read per record gave them)
    for (const id of last.keys()) if (held.has(id)) out.set(id, held.get(id)!);
    return out;
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
    const last = lastHeld([...found.keys()]);
    // the snapshot's, for a record no complete snapshot holds any more (retention forgot them)
    const fromBase = (id: string): boolean => found.has(id) && !last.has(id);
    const held = [...last.values()];
    after.cells = [...after.cells.filter((c) => !found.has(c.recordId)), ...base.cells.filter((c) => fromBase(c.recordId)), ...held.flatMap((h) => h.cells)];
    after.amendments = [...after.amendments.filter((a) => !found.has(a.recordId)), ...base.amendments.filter((a) => fromBase(a.recordId)), ...held.flatMap((h) => h.amendments)];
  }
  return found;
}

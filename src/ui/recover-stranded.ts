// The rollback preview's stand-in for the command's lookup by id of the records of a deleted
// collection (restore/rollback/rollback.ts, findUnlisted). The deployed service leaves a deleted
// collection's top-level records (and their sub-records) stranded: no listing shows them, so no
// backup holds them after the delete, but they answer by id, and the rollback moves them back into
// the collection's copy with their ids, cells and threads. The published interface deletes them
// with the collection, and the rollback makes them anew. The database cannot ask; the feed's row
// for the delete tells the two apart: the published interface's names the collection's id, the
// deployed service's names none (observed-behaviour.md). Where a row names the id, the records
// are made anew; otherwise they count as found, as the dry run then finds them.

import type { Activity, BoardRecord } from '../domain/entities.js';
import type { FoundBy, ModuleTree } from '../restore/index.js';

/** The records the command would find by id, put into `after` (which stands in for the live
 * module too) as it puts them into its live tree: the snapshot's record, cells and amendments. */
export function strandedRecords(base: ModuleTree, after: ModuleTree, feed: () => readonly Activity[]): Map<string, FoundBy> {
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
    after.cells = [...after.cells.filter((c) => !found.has(c.recordId)), ...base.cells.filter((c) => found.has(c.recordId))];
    after.amendments = [...after.amendments.filter((a) => !found.has(a.recordId)), ...base.amendments.filter((a) => found.has(a.recordId))];
  }
  return found;
}

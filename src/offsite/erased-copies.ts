// Offsite copies and an erasure: copies pushed before it still hold the erased data. Listing them
// is what --dry-run and the result show; --offsite replaces them: a fresh copy is pushed first and
// only once it is safely stored (its manifest written) are the older ones deleted — manifest first,
// as remote retention does, so a half-done delete never hides a copy that is kept, and there is
// never a moment with no copy at all.
import { listCopies, pushCopy, type Manifest } from './offsite.js';
import type { ObjectStore } from './object-store.js';
import type { Store } from '../store/port.js';

export interface CopyRef {
  snapshot: number;
  takenAt: string;
  pushedAt: string;
  object: string;
}

const ref = (c: Manifest): CopyRef => ({ snapshot: c.snapshot, takenAt: c.takenAt, pushedAt: c.pushedAt, object: c.object });

/** Every copy in the bucket now: all were made before the erasure being run or planned. */
export async function copiesHoldingErased(objects: ObjectStore, prefix: string): Promise<CopyRef[]> {
  return (await listCopies(objects, prefix)).map(ref);
}

export interface ReplaceResult {
  pushed: CopyRef;
  deleted: CopyRef[];
}

/** Pushes a fresh copy of the (erased) database, then deletes every older copy. */
export async function replaceCopies(store: Store, objects: ObjectStore, settings: { prefix: string; recipients: readonly string[] }, now: Date): Promise<ReplaceResult> {
  const before = await listCopies(objects, settings.prefix);
  const fresh = await pushCopy(store, objects, settings, now);
  // the new copy must be listed (manifest readable) before anything older goes
  const after = await listCopies(objects, settings.prefix);
  const mine = after.find((c) => c.object === fresh.object);
  if (!mine) throw new Error(`the fresh offsite copy ${fresh.object} is not listed after its push; older copies were left in place`);
  const deleted: CopyRef[] = [];
  for (const c of before) {
    if (c.object === fresh.object) continue;
    await objects.delete(c.manifestKey);
    await objects.delete(c.object);
    deleted.push(ref(c));
  }
  return { pushed: ref(fresh), deleted };
}

// A batch cut into parts for the writer thread, and put back together there. Cloning a message
// for postMessage blocks the event loop for as long as the message is big (about 15–25 ms for a
// module of 5,000 cells), and every response in flight waits behind it; parts of a few hundred
// entities, sent with the loop yielded between them, keep each block to a millisecond or two.
import type { Listing, Upserts, WriteBatch } from '../port.js';

export interface BatchPart {
  upserts?: Upserts;
  listings?: Listing[];
}

/** Parts of at most `size` entities or listings each, and what is left (gone marks, cursor,
 * verification marks). */
export function splitBatch(batch: WriteBatch, size: number): { parts: BatchPart[]; rest: WriteBatch } {
  const parts: BatchPart[] = [];
  for (const [key, items] of Object.entries(batch.upserts ?? {}) as Array<[keyof Upserts, unknown[] | undefined]>) {
    for (let i = 0; i < (items?.length ?? 0); i += size) {
      parts.push({ upserts: { [key]: items!.slice(i, i + size) } as Upserts });
    }
  }
  const listings = batch.listings ?? [];
  for (let i = 0; i < listings.length; i += size) parts.push({ listings: listings.slice(i, i + size) });
  const rest: WriteBatch = {};
  if (batch.gone) rest.gone = batch.gone;
  if (batch.cursor) rest.cursor = batch.cursor;
  if (batch.verified) rest.verified = batch.verified;
  if (batch.indexesBack) rest.indexesBack = batch.indexesBack;
  return { parts, rest };
}

/** Adds a part to a batch being reassembled (in arrival order, which is the order they were cut). */
export function addPart(into: WriteBatch, part: BatchPart): void {
  for (const [key, items] of Object.entries(part.upserts ?? {}) as Array<[keyof Upserts, unknown[]]>) {
    const upserts = (into.upserts ??= {}) as Record<string, unknown[]>;
    (upserts[key] ??= []).push(...items);
  }
  if (part.listings) (into.listings ??= []).push(...part.listings);
}

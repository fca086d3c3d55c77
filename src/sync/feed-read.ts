// A full pass reads the whole activity feed back to its retention. One `before` chain of 1,000
// pages would be one request at a time; the feed's `retentionDays` bounds how old a row can be, so
// the range is cut into time slices read side by side, each with the same boundary re-ask as the
// tail (rows of a slice's boundary millisecond are asked again; duplicates dropped by id). Rows
// stream to `onRows` as they arrive, so memory does not grow with the feed.

import type { Activity } from '../domain/entities.js';
import type { ServiceClient } from '../api/port.js';
import { PAGE_LIMIT } from './activity-tail.js';

export interface FeedReadResult {
  head: string | null;
  rows: number;
  requests: number;
  retentionDays: number | null;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** A time range still to read: from `cursorMs` (exclusive, re-asked boundary aside) down to `lowerMs`. */
interface Slice {
  cursorMs: number;
  /** Ids already emitted from the millisecond just above cursorMs (asked again on the next page). */
  boundaryIds: ReadonlySet<string>;
  /** Rows at or above this time belong to the slice; null = down to the end of the feed. */
  lowerMs: number | null;
  done: boolean;
}

/** Slices narrower than the range / (workers x this) are not split: each split costs a page. */
const SPLIT_DEPTH = 8;

/** Reads one slice page by page; its `lowerMs` may be raised meanwhile by a split. */
async function readSlice(client: ServiceClient, workspaceId: string, slice: Slice, emit: (rows: Activity[]) => Promise<void>): Promise<number> {
  let requests = 0;
  let before = iso(slice.cursorMs);
  for (;;) {
    // ahead of the module crawl's queued requests: the feed's rows keep the writer thread busy
    // from the pass's start (else it idles while the crawl's first burst is read), and the feed ends
    // early, so its table's deferred indexes are built while the crawl runs, not on the tail
    const page = await client.listActivity(workspaceId, { limit: PAGE_LIMIT, before }, { priority: 1 });
    requests++;
    const rows = page.activities;
    const lower = slice.lowerMs === null ? null : iso(slice.lowerMs);
    const seen = slice.boundaryIds;
    await emit(rows.filter((r) => (lower === null || r.createdAt >= lower) && !seen.has(r.id)));
    const oldest = rows[rows.length - 1]?.createdAt;
    if (!page.hasMore || oldest === undefined || (lower !== null && oldest < lower)) break;
    // re-ask the boundary millisecond, unless the whole page is that millisecond
    before = oldest === rows[0].createdAt ? oldest : iso(Date.parse(oldest) + 1);
    slice.cursorMs = Date.parse(before);
    // only the boundary millisecond is asked again: remembering its ids is all de-duplication needs
    slice.boundaryIds = new Set(rows.filter((r) => r.createdAt === oldest).map((r) => r.id));
  }
  slice.done = true;
  return requests;
}

/** Takes the lower half of the widest slice still running, or null when none is worth splitting. */
function splitWidest(slices: Slice[], floorMs: number, minWidthMs: number): Slice | null {
  let widest: Slice | null = null;
  let width = minWidthMs;
  for (const s of slices) {
    if (s.done) continue;
    const w = s.cursorMs - (s.lowerMs ?? floorMs);
    if (w > width) {
      width = w;
      widest = s;
    }
  }
  if (!widest) return null;
  const mid = Math.round(widest.cursorMs - width / 2);
  const lower: Slice = { cursorMs: mid, boundaryIds: new Set(), lowerMs: widest.lowerMs, done: false };
  widest.lowerMs = mid;
  slices.push(lower);
  return lower;
}

export async function readWholeFeed(
  client: ServiceClient,
  workspaceId: string,
  opts: {
    slices: number;
    onRows: (rows: Activity[]) => Promise<void>;
    /** Called once the first page (the head, which the cursor will take) has been read. */
    onHead?: (head: string | null) => void;
  },
): Promise<FeedReadResult> {
  // Slices are disjoint; within one, only its re-asked boundary millisecond repeats (see readSlice),
  // so no set of every id read is kept: memory stays flat however long the feed.
  let count = 0;
  const emit = async (rows: Activity[]): Promise<void> => {
    const fresh = rows;
    count += fresh.length;
    if (fresh.length) await opts.onRows(fresh);
  };
  const first = await client.listActivity(workspaceId, { limit: PAGE_LIMIT });
  let requests = 1;
  const rows = first.activities;
  await emit(rows);
  const head = rows[0]?.createdAt ?? null;
  opts.onHead?.(head);
  const retentionDays = first.retentionDays;
  if (!first.hasMore || rows.length === 0 || head === null) return { head, rows: count, requests, retentionDays };

  const highMs = Date.parse(rows[rows.length - 1].createdAt) + 1;
  const workers = retentionDays && retentionDays > 0 ? Math.max(1, opts.slices) : 1;
  // Rows older than head - retention are gone from the service: a first guess at where the feed
  // ends. Rows are rarely spread evenly, so a worker whose slice ends takes over the lower half of
  // the widest slice still running, keeping every worker busy.
  const floorMs = retentionDays && retentionDays > 0 ? Date.parse(head) - retentionDays * 86_400_000 : highMs;
  const step = (highMs - floorMs) / workers;
  const firstBoundary = new Set(rows.filter((r) => r.createdAt === rows[rows.length - 1].createdAt).map((r) => r.id));
  const slices: Slice[] = Array.from({ length: workers }, (_, i) => ({
    cursorMs: Math.round(highMs - i * step),
    boundaryIds: i === 0 ? firstBoundary : new Set<string>(),
    lowerMs: i === workers - 1 ? null : Math.round(highMs - (i + 1) * step),
    done: false,
  }));
  const minWidthMs = Math.max(1000, (highMs - floorMs) / (workers * SPLIT_DEPTH));
  const work = async (first: Slice): Promise<void> => {
    for (let slice: Slice | null = first; slice; slice = splitWidest(slices, floorMs, minWidthMs)) {
      // not `requests += await …`: that reads `requests` before the await and loses other workers' counts
      const n = await readSlice(client, workspaceId, slice, emit);
      requests += n;
    }
  };
  await Promise.all(slices.slice(0, workers).map(work));
  return { head, rows: count, requests, retentionDays };
}

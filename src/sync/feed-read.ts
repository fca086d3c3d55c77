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

/** Reads pages from `before` down to `lower` (inclusive; null = the end of the feed). */
async function readChain(
  client: ServiceClient,
  workspaceId: string,
  before: string,
  lower: string | null,
  emit: (rows: Activity[]) => Promise<void>,
): Promise<number> {
  let requests = 0;
  let cursor = before;
  for (;;) {
    const page = await client.listActivity(workspaceId, { limit: PAGE_LIMIT, before: cursor });
    requests++;
    const rows = page.activities;
    await emit(lower ? rows.filter((r) => r.createdAt >= lower) : rows);
    if (!page.hasMore || rows.length === 0) return requests;
    const oldest = rows[rows.length - 1].createdAt;
    if (lower && oldest < lower) return requests;
    // re-ask the boundary millisecond, unless the whole page is that millisecond
    cursor = oldest === rows[0].createdAt ? oldest : iso(Date.parse(oldest) + 1);
  }
}

export async function readWholeFeed(
  client: ServiceClient,
  workspaceId: string,
  opts: { slices: number; onRows: (rows: Activity[]) => Promise<void> },
): Promise<FeedReadResult> {
  const seen = new Set<string>();
  let count = 0;
  const emit = async (rows: Activity[]): Promise<void> => {
    const fresh = rows.filter((r) => !seen.has(r.id));
    for (const r of fresh) seen.add(r.id);
    count += fresh.length;
    if (fresh.length) await opts.onRows(fresh);
  };
  const first = await client.listActivity(workspaceId, { limit: PAGE_LIMIT });
  let requests = 1;
  const rows = first.activities;
  await emit(rows);
  const head = rows[0]?.createdAt ?? null;
  const retentionDays = first.retentionDays;
  if (!first.hasMore || rows.length === 0 || head === null) return { head, rows: count, requests, retentionDays };

  const highMs = Date.parse(rows[rows.length - 1].createdAt) + 1;
  const slices = retentionDays && retentionDays > 0 ? Math.max(1, opts.slices) : 1;
  if (slices === 1) {
    requests += await readChain(client, workspaceId, iso(highMs), null, emit);
    return { head, rows: count, requests, retentionDays };
  }
  // Rows older than head - retention are gone from the service; the last slice is open-ended
  // anyway, in case the service's clock is ahead of its newest row.
  const lowMs = Date.parse(head) - retentionDays! * 86_400_000;
  const step = Math.max(1, (highMs - lowMs) / slices);
  const chains: Array<Promise<number>> = [];
  for (let i = 0; i < slices; i++) {
    const upper = Math.round(highMs - i * step);
    const lower = i === slices - 1 ? null : iso(Math.round(highMs - (i + 1) * step));
    chains.push(readChain(client, workspaceId, iso(upper), lower, emit));
  }
  requests += (await Promise.all(chains)).reduce((a, b) => a + b, 0);
  return { head, rows: count, requests, retentionDays };
}

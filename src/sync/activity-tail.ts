// Reads a workspace's activity feed newest-first, from the head back to a cursor (or to the end of
// retention), losing no row that shares a millisecond with a page boundary.
//
// The deployed service pages with a strict `before` and no tie-breaker, so rows sharing the last
// row's millisecond that did not fit on the page would be skipped for good by a naive client. We
// ask again from one millisecond later (`before = boundary + 1 ms`) and de-duplicate by `_id`.

import type { Activity } from '../domain/entities.js';
import type { ActivityPage, ServiceClient } from '../api/port.js';

export const PAGE_LIMIT = 100;

export interface TailResult {
  /** Rows newer than or equal to the cursor (all rows when no cursor), de-duplicated, newest first. */
  rows: Activity[];
  /** createdAt of the newest row seen (the signpost to store once everything is written). */
  head: string | null;
  retentionDays: number | null;
  /** Why rows may have been lost (the caller then falls back to a full pass), or null. */
  gap: string | null;
  requests: number;
}

const EPOCH = '1970-01-01T00:00:00.000Z';

function plusOneMs(iso: string): string {
  return new Date(Date.parse(iso) + 1).toISOString();
}

/**
 * @param cursor createdAt of the newest row stored last time; null reads back to the end of the feed.
 */
export async function tailActivity(client: ServiceClient, workspaceId: string, cursor: string | null): Promise<TailResult> {
  const seen = new Map<string, Activity>();
  let before: string | undefined;
  let head: string | null = null;
  let retentionDays: number | null = null;
  let requests = 0;
  let reachedCursor = false;
  let gap: string | null = null;
  const realCursor = cursor !== null && cursor > EPOCH;

  let sawCursorRow = false;
  for (;;) {
    const page: ActivityPage = await client.listActivity(workspaceId, { limit: PAGE_LIMIT, ...(before ? { before } : {}) });
    requests++;
    retentionDays = page.retentionDays ?? retentionDays;
    const rows = page.activities;
    if (head === null) head = rows[0]?.createdAt ?? null;
    for (const row of rows) {
      // Rows of the cursor's own millisecond are read again: a row written in that millisecond
      // after the last pass read it is new. Known ones are filtered out by id later.
      if (cursor !== null && row.createdAt < cursor) {
        reachedCursor = true;
        continue;
      }
      if (realCursor && row.createdAt === cursor) sawCursorRow = true;
      if (!seen.has(row.id)) seen.set(row.id, row);
    }
    if (reachedCursor || !page.hasMore || rows.length === 0) break;
    const oldest = rows[rows.length - 1].createdAt;
    if (oldest === rows[0].createdAt) {
      // The whole page is one millisecond. A service that ends pages on a millisecond boundary
      // (the page grew past the limit) loses nothing with a strict `before`; a full page of one
      // millisecond from one that does not may hide more rows of it, unreachable by paging.
      if (rows.length === PAGE_LIMIT) {
        gap = `at least ${PAGE_LIMIT} activity rows share ${oldest}; the feed cannot be paged past them without loss`;
      }
      before = oldest;
    } else {
      before = plusOneMs(oldest);
    }
  }
  if (realCursor && sawCursorRow) reachedCursor = true;

  if (!gap && realCursor && !reachedCursor) {
    gap = `the feed no longer reaches the stored cursor ${cursor} (rows lost to retention${retentionDays ? ` of ${retentionDays} days` : ''})`;
  }
  if (!gap && realCursor && head && retentionDays && retentionDays > 0) {
    const ageMs = Date.parse(head) - Date.parse(cursor);
    if (ageMs > retentionDays * 86_400_000) {
      gap = `the stored cursor ${cursor} is older than the feed's retention of ${retentionDays} days`;
    }
  }
  const out = [...seen.values()].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
  return { rows: out, head: head ?? cursor, retentionDays, gap, requests };
}

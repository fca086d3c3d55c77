import { describe, expect, it } from 'vitest';
import type { Activity } from '../domain/entities.js';
import type { ActivityQuery, ServiceClient } from '../api/port.js';
import { readWholeFeed } from './feed-read.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 1);

function row(i: number, ms: number): Activity {
  return {
    id: `a${i}`, workspaceId: 'w', action: 'cell_updated', message: null, targetName: null, moduleId: null, collectionId: null,
    recordId: null, columnId: null, userId: null, automationId: null, before: null, after: null, createdAt: new Date(ms).toISOString(), raw: {},
  };
}

/** The deployed service's paging: newest first, strict `before`, no tie-breaker, nextCursor = last row. */
function fakeFeed(rows: Activity[], retentionDays: number): { client: ServiceClient; calls: () => number } {
  const sorted = [...rows].sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
  let calls = 0;
  const client = {
    listActivity: async (_ws: string, q: ActivityQuery) => {
      calls++;
      await new Promise((r) => setImmediate(r));
      const limit = q.limit ?? 50;
      const eligible = q.before ? sorted.filter((r) => r.createdAt < q.before!) : sorted;
      const page = eligible.slice(0, limit);
      return { activities: page, hasMore: eligible.length > limit, nextCursor: page.at(-1)?.createdAt ?? null, retentionDays };
    },
  } as unknown as ServiceClient;
  return { client, calls: () => calls };
}

async function readAll(rows: Activity[], slices: number): Promise<{ ids: string[]; requests: number; calls: number }> {
  const feed = fakeFeed(rows, 90);
  const ids: string[] = [];
  const res = await readWholeFeed(feed.client, 'w', { slices, onRows: async (r) => void ids.push(...r.map((x) => x.id)) });
  expect(res.requests).toBe(feed.calls());
  return { ids, requests: res.requests, calls: feed.calls() };
}

describe('readWholeFeed', () => {
  it('reads every row exactly once when rows crowd the newest days and share milliseconds', async () => {
    const rows: Activity[] = [];
    let i = 0;
    // 3,000 rows in the newest 20 days of a 90-day retention, in bursts of 7 writes per millisecond
    for (let k = 0; k < 3000; k++) rows.push(row(i++, NOW - Math.floor(k / 7) * 400_000));
    // and a few old ones near the retention edge
    for (let k = 0; k < 30; k++) rows.push(row(i++, NOW - 85 * DAY + k * 1000));
    for (const slices of [1, 4, 8]) {
      const { ids, requests } = await readAll(rows, slices);
      expect(new Set(ids).size).toBe(rows.length);
      expect(ids.length).toBe(rows.length);
      // a page of 100 holds 100 rows: splitting costs a handful of extra pages, not a multiple
      expect(requests).toBeLessThan(Math.ceil(rows.length / 100) * 1.6 + slices * 2);
    }
  });

  it('reads a short feed with one request', async () => {
    const { ids, requests } = await readAll([row(1, NOW), row(2, NOW - 1000)], 8);
    expect(ids).toEqual(['a1', 'a2']);
    expect(requests).toBe(1);
  });
});

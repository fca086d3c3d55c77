// Syncs one workspace inside a pass: the activity tail, then its parts (workspace-crawl.ts), each
// in its own transaction. The cursor moves last, with the workspace's own rows, and only when every part
// of the workspace succeeded — so it is never ahead of the data it covers.

import type { Activity, Workspace } from '../domain/entities.js';
import { WbsyncError } from '../domain/errors.js';
import type { GoneMark, Listing, StateReader, WriteBatch } from '../store/port.js';
import { deletionsNamed } from '../store/write/index.js';
import { restoredSources } from '../store/read/index.js';
import { tailActivity, type TailResult } from './activity-tail.js';
import { readWholeFeed } from './feed-read.js';
import { ACCEPT_LOSS_HINT, lossOf, type PassEnv, type WorkspaceOutcome } from './pass-env.js';
import { RecordTrace } from './record-trace.js';
import { accessListings, crawlParts, readArchivedFromFeed, type CrawledParts } from './workspace-crawl.js';

export type { PartFailure, PassEnv, WorkspaceOutcome } from './pass-env.js';

const EPOCH = '1970-01-01T00:00:00.000Z';

/** Activity rows per write batch of a full feed read (one transaction each). */
const FEED_BATCH_ROWS = 2500;

/** The tables whose deferred indexes (a first fill) the feed's last batch builds back. */
const FEED_INDEXES_BACK = ['activity', 'cell'] as const;

/**
 * Reads the whole feed into the store without holding up the caller: `headRead` settles once the
 * first page is in (or the read failed), `done` when every row is written. At most one batch is
 * being written while the next fills, so memory stays at two batches however long the feed.
 */
function readFeedInBackground(env: PassEnv, workspaceId: string, trace: RecordTrace, prev: StateReader | null): { headRead: Promise<void>; done: Promise<{ head: string | null; rows: number }> } {
  let buffer: Activity[] = [];
  let writing: Promise<void> = Promise.resolve();
  const flush = async (last = false): Promise<void> => {
    await writing; // one batch in the writer at a time; surfaces its failure here
    const batch = buffer;
    buffer = [];
    // The feed's last batch builds a first fill's deferred indexes, the cells' with the feed's: the
    // feed goes ahead of the crawl, so this lands while modules are still read and the writer has
    // room, not on the pass's tail; the cells of the modules still to come are inserted with their
    // indexes in place (issue 37, twelfth round)
    const indexesBack = last && env.feedIndexesBack;
    if (batch.length === 0 && !indexesBack) return;
    writing = env.apply({ ...(batch.length ? { upserts: { activity: batch } } : {}), ...(indexesBack ? { indexesBack: FEED_INDEXES_BACK } : {}) });
    writing.catch(() => undefined); // awaited by the next flush
  };
  // read before this pass writes a row: a feed this backup never stored (a first fill, whose
  // indexes wait for its end) has no row to look up
  const earlier = prev?.anyActivity() ? prev : null;
  let headRead!: () => void;
  const head = new Promise<void>((resolve) => (headRead = resolve));
  const done = (async () => {
    const feed = await readWholeFeed(env.client, workspaceId, {
      slices: env.feedSlices,
      onHead: () => headRead(),
      onRows: async (rows) => {
        if (env.signal?.aborted) throw new WbsyncError('partial', 'feed read stopped by a signal', { details: { interrupted: true } });
        buffer.push(...rows);
        // rows an earlier pass stored say nothing new of the versions it read after them
        trace.add(rows, earlier?.activityStoredAt(rows.map((r) => r.id)));
        if (buffer.length >= FEED_BATCH_ROWS) await flush();
      },
    });
    await flush(true);
    await writing;
    return { head: feed.head, rows: feed.rows };
  })();
  done.catch(() => undefined); // the caller awaits it after the module crawl
  return { headRead: Promise.race([head, done.then(() => undefined)]), done };
}

export async function syncWorkspace(env: PassEnv, ws: Workspace, wantFull: boolean): Promise<WorkspaceOutcome> {
  const { client, store, logger } = env;
  const prev: StateReader | null = store.stateAt(env.snapshotId);
  const cursor = wantFull ? null : store.getCursor(ws.id);
  const outcome: WorkspaceOutcome = { workspaceId: ws.id, mode: cursor ? 'incremental' : 'full', modulesCrawled: 0, activityRows: 0, recordProbes: 0, failures: [] };

  let tail: TailResult | null = null;
  let newRows: Activity[] = [];
  if (cursor) {
    tail = await tailActivity(client, ws.id, cursor.cursor);
    if (tail.gap) {
      outcome.mode = 'full';
      outcome.fallback = tail.gap;
      logger.warn({ workspaceId: ws.id, reason: tail.gap }, 'activity gap, falling back to a full pass');
      tail = null;
    } else {
      const known = store.knownActivityIds(tail.rows.map((r) => r.id));
      newRows = tail.rows.filter((r) => !known.has(r.id));
    }
  }
  const full = outcome.mode === 'full';
  // A full crawl reads the whole feed in parallel time slices, streaming rows to the store in
  // batches, side by side with the module crawl below: the writer thread stores activity while
  // modules are fetched. Its first page, the signpost the cursor will take, is read before any
  // module, so nothing written during the crawl can fall behind the cursor.
  let feedDone: Promise<{ head: string | null; rows: number }> | null = null;
  const feedTrace = new RecordTrace();
  if (full) {
    const feed = readFeedInBackground(env, ws.id, feedTrace, prev);
    await feed.headRead;
    feedDone = feed.done;
  }

  let parts: CrawledParts;
  try {
    parts = await crawlParts(env, ws, prev, full, newRows, outcome);
  } catch (e) {
    // no feed read may outlive the pass that started it
    await feedDone?.catch(() => undefined);
    throw e;
  }
  const { modules, plan, liveMembers, automations, access, toCrawl, crawled, verified } = parts;
  const fullFeed = feedDone ? await feedDone : null;
  if (fullFeed && !env.signal?.aborted) await readArchivedFromFeed(env, ws, prev, parts, feedTrace, outcome);
  if (env.signal?.aborted) throw new WbsyncError('partial', 'pass interrupted by a signal; nothing half-written was kept — run again to resume', { details: { interrupted: true } });
  outcome.modulesCrawled = crawled.size;
  if (fullFeed) outcome.activityRows = fullFeed.rows;

  // Workspace-level batch: the list entities, vanished modules, the feed rows and the cursor.
  // every module it held vanished at once and none is listed: held, never recorded as the new truth
  // — unless the feed says each was deleted (a person deleting a workspace's last board is not a
  // lost access; the tripwire still reports the deletion)
  const explainedByFeed = (before: StateReader): boolean => {
    const vanished = plan.vanished.map((id) => ({ id, name: before.module(id)?.name ?? '' }));
    const rows = newRows.filter((r) => r.action === 'module_deleted').map((r) => ({ id: r.moduleId, name: r.targetName }));
    const deleted = new Set([...deletionsNamed(vanished, rows), ...env.store.loggedModuleDeletions(ws.id, vanished)]);
    const restored = restoredSources(env.store.db, 'module');
    return plan.vanished.every((id) => deleted.has(id) || restored.has(id));
  };
  const held = !env.acceptLoss && modules.length === 0 && prev && plan.vanished.length === prev.modules(ws.id).length && !explainedByFeed(prev)
    ? lossOf(ws, plan.vanished, prev.moduleSizes(ws.id), 'lists no module any more')
    : null;
  if (held) {
    outcome.held = held;
    outcome.failures.push({ workspaceId: ws.id, reason: `held: the service lists none of the ${held.modules} modules (${held.records} records) this workspace held — nothing marked gone; ${ACCEPT_LOSS_HINT}` });
  }
  const failedIds = new Set(outcome.failures.map((f) => f.moduleId));
  const gone: GoneMark[] = held ? [] : plan.vanished.map((id) => ({ kind: 'module' as const, id, cascade: true }));
  // Vanished modules are marked through `gone` (with their contents), not a module listing.
  const listings: Listing[] = [];
  if (liveMembers) listings.push({ kind: 'member', workspaceId: ws.id, ids: liveMembers.map((m) => m.userId) });
  if (automations) listings.push({ kind: 'workspaceAutomation', workspaceId: ws.id, ids: automations.map((a) => a.id) });
  if (access && liveMembers) listings.push(...accessListings(ws.id, liveMembers, access));

  const rows = full ? [] : newRows;
  const head = fullFeed ? fullFeed.head : (tail?.head ?? cursor?.cursor ?? null);
  if (!full) outcome.activityRows = rows.length;
  const batch: WriteBatch = {
    upserts: {
      // A module whose crawl failed keeps its old version, so the next pass still sees it as moved.
      modules: modules.filter((m) => !failedIds.has(m.id) && (crawled.has(m.id) || !toCrawl.includes(m))),
      ...(liveMembers ? { members: liveMembers } : {}),
      ...(automations ? { automations } : {}),
      ...(access ? { moduleAccess: access } : {}),
      activity: rows,
    },
    listings,
    gone,
    verified,
  };
  if (outcome.failures.length === 0) batch.cursor = { workspaceId: ws.id, cursor: head ?? EPOCH };
  await env.apply(batch);
  return outcome;
}

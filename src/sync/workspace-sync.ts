// Syncs one workspace inside a pass: the activity tail, members, modules, workspace automations,
// module-access grants, then each module that needs it (all of them on a full crawl), each in its
// own transaction. The cursor moves last, with the workspace's own rows, and only when every part
// of the workspace succeeded — so it is never ahead of the data it covers.

import type { Activity, Automation, Member, Module, ModuleAccess, Workspace } from '../domain/entities.js';
import { WbsyncError, isWbsyncError } from '../domain/errors.js';
import type { ServiceClient } from '../api/port.js';
import type { Logger } from '../config/logger.js';
import type { GoneMark, Listing, StateReader, Store, WriteBatch } from '../store/port.js';
import { tailActivity, type TailResult } from './activity-tail.js';
import { readWholeFeed } from './feed-read.js';
import { planIncremental } from './incremental-plan.js';
import { crawlModule, readFeedNamedRecords, type ModuleCrawlResult } from './module-crawl.js';
import { RecordTrace } from './record-trace.js';
import { readReferences, referencesStale } from './references.js';

export interface PassEnv {
  client: ServiceClient;
  store: Store;
  snapshotId: number;
  logger: Logger;
  /** Bounds the modules crawled at once, so memory follows the largest module, not the workspace. */
  limitModules: <T>(fn: () => Promise<T>) => Promise<T>;
  apply: (batch: WriteBatch) => Promise<void>;
  onModuleDone: (records: number) => void;
  onModulesPlanned: (count: number) => void;
  /** Parallel time slices for reading a whole feed (about the requests in flight). */
  feedSlices: number;
  signal?: AbortSignal;
}

export interface PartFailure {
  workspaceId: string;
  moduleId?: string;
  moduleName?: string;
  reason: string;
}

export interface WorkspaceOutcome {
  workspaceId: string;
  mode: 'full' | 'incremental';
  /** Why an incremental pass fell back to a full crawl. */
  fallback?: string;
  modulesCrawled: number;
  activityRows: number;
  /** Requests spent reading records outside every listing (archived or deleted ones). */
  recordProbes: number;
  failures: PartFailure[];
}

const EPOCH = '1970-01-01T00:00:00.000Z';

/** A module-level failure that skips the module (the pass goes on); anything else ends the pass. */
function isModuleLevel(e: unknown): e is WbsyncError {
  return isWbsyncError(e) && (e.code === 'not_found' || e.code === 'forbidden' || e.code === 'bad_response');
}

async function readAccess(client: ServiceClient, workspaceId: string, members: Member[]): Promise<ModuleAccess[] | null> {
  // Only owners and admins may read grants; the first refusal says the key's user is neither.
  const out: ModuleAccess[] = [];
  for (const [i, m] of members.entries()) {
    try {
      out.push(...(await client.getModuleAccess(workspaceId, m.userId)));
    } catch (e) {
      if (isWbsyncError(e) && e.code === 'forbidden' && i === 0) return null;
      if (isWbsyncError(e) && (e.code === 'forbidden' || e.code === 'not_found')) continue;
      throw e;
    }
  }
  return out;
}

function accessListings(workspaceId: string, members: Member[], access: ModuleAccess[]): Listing[] {
  return members.map((m) => ({
    kind: 'moduleAccess' as const,
    workspaceId,
    userId: m.userId,
    ids: access.filter((a) => a.userId === m.userId).map((a) => a.moduleId),
  }));
}

/** Activity rows per write batch of a full feed read (one transaction each). */
const FEED_BATCH_ROWS = 2500;

/**
 * Reads the whole feed into the store without holding up the caller: `headRead` settles once the
 * first page is in (or the read failed), `done` when every row is written. At most one batch is
 * being written while the next fills, so memory stays at two batches however long the feed.
 */
function readFeedInBackground(env: PassEnv, workspaceId: string, trace: RecordTrace): { headRead: Promise<void>; done: Promise<{ head: string | null; rows: number }> } {
  let buffer: Activity[] = [];
  let writing: Promise<void> = Promise.resolve();
  const flush = async (): Promise<void> => {
    await writing; // one batch in the writer at a time; surfaces its failure here
    const batch = buffer;
    buffer = [];
    if (batch.length === 0) return;
    writing = env.apply({ upserts: { activity: batch } });
    writing.catch(() => undefined); // awaited by the next flush
  };
  let headRead!: () => void;
  const head = new Promise<void>((resolve) => (headRead = resolve));
  const done = (async () => {
    const feed = await readWholeFeed(env.client, workspaceId, {
      slices: env.feedSlices,
      onHead: () => headRead(),
      onRows: async (rows) => {
        if (env.signal?.aborted) throw new WbsyncError('partial', 'feed read stopped by a signal', { details: { interrupted: true } });
        buffer.push(...rows);
        trace.add(rows);
        if (buffer.length >= FEED_BATCH_ROWS) await flush();
      },
    });
    await flush();
    await writing;
    return { head: feed.head, rows: feed.rows };
  })();
  done.catch(() => undefined); // the caller awaits it after the module crawl
  return { headRead: Promise.race([head, done.then(() => undefined)]), done };
}

interface CrawledParts {
  modules: Module[];
  plan: ReturnType<typeof planIncremental>;
  liveMembers: Member[] | null;
  automations: Automation[] | null;
  access: ModuleAccess[] | null;
  toCrawl: Module[];
  crawled: Set<string>;
  /** Per crawled module, what its crawl saw (kept by full passes for the feed-named read). */
  seenBy: Map<string, Pick<ModuleCrawlResult, 'memory' | 'liveCollections'>>;
}

/** Members, modules, workspace automations, grants, then each module to crawl (each its own batch). */
async function crawlParts(env: PassEnv, ws: Workspace, prev: StateReader | null, full: boolean, newRows: Activity[], outcome: WorkspaceOutcome): Promise<CrawledParts> {
  const { client, logger } = env;
  const [members, modules] = await Promise.all([
    full || !prev ? client.listMembers(ws.id) : Promise.resolve(null),
    client.listModules(ws.id),
  ]);
  const modulesBefore = prev?.modules(ws.id) ?? [];
  const plan = planIncremental({
    rows: newRows,
    modulesNow: modules,
    modulesBefore,
    moduleOfRecord: (id) => prev?.record(id)?.moduleId ?? null,
  });

  const liveMembers = members ?? (plan.membersChanged || plan.accessChanged ? await client.listMembers(ws.id) : null);
  const automations = full || plan.anyChange ? await client.listWorkspaceAutomations(ws.id) : null;
  const access = (full || plan.accessChanged || plan.membersChanged) && liveMembers ? await readAccess(client, ws.id, liveMembers) : null;

  const toCrawl: Module[] = full ? modules : modules.filter((m) => plan.touched.has(m.id));
  env.onModulesPlanned(toCrawl.length);
  const crawled = new Set<string>();
  const seenBy = new Map<string, Pick<ModuleCrawlResult, 'memory' | 'liveCollections'>>();
  const trace = new RecordTrace();
  trace.add(newRows);
  // A failure that ends the pass stops modules not yet started, and waits for those in flight:
  // none may still be writing once the pass has returned.
  const fatal: unknown[] = [];
  await Promise.all(
    toCrawl.map((m) =>
      env.limitModules(async () => {
        if (env.signal?.aborted || fatal.length) return;
        try {
          const res = await crawlModule(client, m, prev, {
            mode: full || plan.added.has(m.id) ? 'full' : 'incremental',
            namedRecords: plan.namedRecords.get(m.id) ?? new Set(),
            trace,
            recheckSubRecords: plan.unexplained.has(m.id),
            formerRecords: (ids) => env.store.formerRecordIds(ids),
          });
          await env.apply(res.batch);
          crawled.add(m.id);
          outcome.recordProbes += res.probes;
          if (full) seenBy.set(m.id, { memory: res.memory, liveCollections: res.liveCollections });
          env.onModuleDone(res.records);
        } catch (e) {
          if (!isModuleLevel(e)) {
            fatal.push(e);
            return;
          }
          const reason = `${e.message}${e.status ? ` (HTTP ${e.status})` : ''}`;
          outcome.failures.push({ workspaceId: ws.id, moduleId: m.id, moduleName: m.name, reason });
          logger.warn({ workspaceId: ws.id, moduleId: m.id, reason }, 'module skipped');
          env.onModuleDone(0);
        }
      }),
    ),
  );
  if (fatal.length) throw fatal[0];
  // Modules not crawled whose relation columns point at a crawled or vanished one: their resolved
  // references (names and values of the far side's records) may have moved or gone.
  const changed = new Set([...crawled, ...plan.vanished]);
  if (!full && changed.size) {
    const stale = modules.filter((m) => !toCrawl.includes(m) && referencesStale(prev?.columns(m.id) ?? [], changed));
    await Promise.all(
      stale.map(async (m) => {
        const refs = await readReferences(client, m.id, prev?.columns(m.id) ?? []);
        await env.apply({ upserts: { references: refs.references }, listings: [refs.listing] });
      }),
    );
  }
  return { modules, plan, liveMembers, automations, access, toCrawl, crawled, seenBy };
}

/**
 * A full pass, once the whole feed is in: records the feed names that no listing showed (archived
 * before this backup began, or since) are read by id and kept as archived, module by module.
 */
async function readArchivedFromFeed(env: PassEnv, ws: Workspace, prev: StateReader | null, parts: CrawledParts, trace: RecordTrace, outcome: WorkspaceOutcome): Promise<void> {
  await Promise.all(
    parts.modules
      .filter((m) => parts.seenBy.has(m.id))
      .map((m) =>
        env.limitModules(async () => {
          if (env.signal?.aborted) return;
          try {
            const res = await readFeedNamedRecords(env.client, m, prev, parts.seenBy.get(m.id)!, trace, (ids) => env.store.formerRecordIds(ids));
            outcome.recordProbes += res.probes;
            if (res.probes > 0) await env.apply(res.batch);
          } catch (e) {
            if (!isModuleLevel(e)) throw e;
            const reason = `${e.message}${e.status ? ` (HTTP ${e.status})` : ''}`;
            outcome.failures.push({ workspaceId: ws.id, moduleId: m.id, moduleName: m.name, reason });
            env.logger.warn({ workspaceId: ws.id, moduleId: m.id, reason }, 'module skipped');
          }
        }),
      ),
  );
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
    const feed = readFeedInBackground(env, ws.id, feedTrace);
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
  const { modules, plan, liveMembers, automations, access, toCrawl, crawled } = parts;
  const fullFeed = feedDone ? await feedDone : null;
  if (fullFeed && !env.signal?.aborted) await readArchivedFromFeed(env, ws, prev, parts, feedTrace, outcome);
  if (env.signal?.aborted) throw new WbsyncError('partial', 'pass interrupted by a signal; nothing half-written was kept — run again to resume', { details: { interrupted: true } });
  outcome.modulesCrawled = crawled.size;
  if (fullFeed) outcome.activityRows = fullFeed.rows;

  // Workspace-level batch: the list entities, vanished modules, the feed rows and the cursor.
  const failedIds = new Set(outcome.failures.map((f) => f.moduleId));
  const gone: GoneMark[] = plan.vanished.map((id) => ({ kind: 'module' as const, id, cascade: true }));
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
  };
  if (outcome.failures.length === 0) batch.cursor = { workspaceId: ws.id, cursor: head ?? EPOCH };
  await env.apply(batch);
  return outcome;
}

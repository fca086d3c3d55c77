// One workspace's parts inside a pass: members, modules, workspace automations, grants, then each
// module that needs it (all of them on a full crawl; on an incremental one those the feed or a
// moved timestamp name, plus those the rolling re-verification finds due), each in its own batch.
// A module read in full carries its verification mark in that same batch.

import PQueue from 'p-queue';
import type { Activity, Automation, Member, Module, ModuleAccess, Workspace } from '../domain/entities.js';
import { WbsyncError, isWbsyncError } from '../domain/errors.js';
import { countCalls } from '../api/call-counter.js';
import type { ServiceClient } from '../api/port.js';
import type { Listing, PartRef, StateReader, WriteBatch } from '../store/port.js';
import { planIncremental } from './incremental-plan.js';
import { crawlModule, readFeedNamedRecords, type ModuleCrawlResult } from './module-crawl.js';
import type { PassEnv, Reverification, WorkspaceOutcome } from './pass-env.js';
import { RecordTrace } from './record-trace.js';
import { readReferences, referencesStale } from './references.js';
import { moduleWeight, planReverification } from './reverify-plan.js';

/** Crawled modules' batches waiting for (or at) the writer without holding a crawl slot: one, so
 * at most three modules are in memory at once (two crawling), against two before (issue #37). */
const WRITES_WAITING = 1;

/** A module-level failure that skips the module (the pass goes on); anything else ends the pass. */
export function isModuleLevel(e: unknown): e is WbsyncError {
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

/**
 * The creation rows an earlier pass stored of the records new rows name that this backup does not
 * hold, per module: the trace must know such a record as a sub-record when its creation row said
 * so, as a full pass's reading of the whole feed does. A sub-record created and archived between
 * two passes, and written to later, is otherwise named only by rows that say nothing of a parent,
 * and would be stored as a top-level record of its parent's collection.
 */
function storedCreations(prev: StateReader, newRows: readonly Activity[]): Activity[][] {
  const named = new Map<string, Set<string>>();
  for (const r of newRows) {
    if (!r.recordId || !r.moduleId) continue;
    let ids = named.get(r.moduleId);
    if (!ids) named.set(r.moduleId, (ids = new Set()));
    ids.add(r.recordId);
  }
  return [...named].map(([moduleId, ids]) => prev.recordCreations(moduleId, [...ids].filter((id) => !prev.record(id))));
}

export function accessListings(workspaceId: string, members: Member[], access: ModuleAccess[]): Listing[] {
  return members.map((m) => ({
    kind: 'moduleAccess' as const,
    workspaceId,
    userId: m.userId,
    ids: access.filter((a) => a.userId === m.userId).map((a) => a.moduleId),
  }));
}

export interface CrawledParts {
  modules: Module[];
  plan: ReturnType<typeof planIncremental>;
  liveMembers: Member[] | null;
  automations: Automation[] | null;
  access: ModuleAccess[] | null;
  toCrawl: Module[];
  crawled: Set<string>;
  /** Per crawled module, what its crawl saw (kept by full passes for the feed-named read). */
  seenBy: Map<string, Pick<ModuleCrawlResult, 'memory' | 'liveCollections' | 'deferred' | 'collectionMarks'>>;
  /** Parts read in full by this pass whose marks go in the workspace's batch (its own lists). */
  verified: PartRef[];
}

/** What the rolling re-verification reads in full this pass (incremental passes only). */
function dueParts(env: PassEnv, ws: Workspace, prev: StateReader | null): { modules: Set<string>; workspace: boolean; figures: Reverification } | null {
  const f = env.freshness;
  if (!f || !prev) return null;
  const sizes = prev.moduleSizes(ws.id);
  const memberCount = prev.members(ws.id).length;
  const parts = env.store.verifiedParts(ws.id).map((p) => ({
    kind: p.kind,
    id: p.id,
    verifiedAtMs: Date.parse(p.verifiedAt),
    weight: p.kind === 'workspace' ? 2 + memberCount : moduleWeight(sizes.get(p.id)),
  }));
  const plan = planReverification({ parts, nowMs: f.nowMs, lastPassMs: f.lastPassMs, windowMs: f.windowMs });
  const modules = new Set(plan.chosen.filter((p) => p.kind === 'module').map((p) => p.id));
  const workspace = plan.chosen.some((p) => p.kind === 'workspace');
  return {
    modules,
    workspace,
    figures: { modules: [...modules], workspace, requests: 0, budget: plan.budget, oldestAgeSeconds: Math.round(plan.oldestAgeMs / 1000) },
  };
}

/** A module-level failure: the module is skipped (a failure in the outcome, a warning), the pass goes on. */
function skipModule(env: PassEnv, ws: Workspace, m: Module, e: WbsyncError, outcome: WorkspaceOutcome): void {
  const reason = `${e.message}${e.status ? ` (HTTP ${e.status})` : ''}`;
  outcome.failures.push({ workspaceId: ws.id, moduleId: m.id, moduleName: m.name, reason });
  env.logger.warn({ workspaceId: ws.id, moduleId: m.id, reason }, 'module skipped');
}

/** An incremental pass: modules not crawled whose relation columns point at a crawled or vanished
 * one re-read their resolved references (names and values of the far side's records may have
 * moved or gone). */
async function refreshStaleReferences(env: PassEnv, prev: StateReader | null, modules: Module[], toCrawl: Module[], changed: Set<string>): Promise<void> {
  if (!changed.size) return;
  const stale = modules.filter((m) => !toCrawl.includes(m) && referencesStale(prev?.columns(m.id) ?? [], changed));
  await Promise.all(
    stale.map(async (m) => {
      const refs = await readReferences(env.client, m.id, prev?.columns(m.id) ?? []);
      await env.apply({ upserts: { references: refs.references }, listings: [refs.listing] });
    }),
  );
}

/** Members, modules, workspace automations, grants, then each module to crawl (each its own batch). */
export async function crawlParts(env: PassEnv, ws: Workspace, prev: StateReader | null, full: boolean, newRows: Activity[], outcome: WorkspaceOutcome): Promise<CrawledParts> {
  const due = full ? null : dueParts(env, ws, prev);
  if (due) outcome.reverified = due.figures;
  const wsCalls = countCalls(env.client);
  // the workspace's own lists are counted as re-verification when only the window asks for them
  const client = due?.workspace ? wsCalls.client : env.client;
  const [members, modules] = await Promise.all([
    full || !prev || due?.workspace ? client.listMembers(ws.id) : Promise.resolve(null),
    env.client.listModules(ws.id),
  ]);
  const modulesBefore = prev?.modules(ws.id) ?? [];
  const plan = planIncremental({
    rows: newRows,
    modulesNow: modules,
    modulesBefore,
    moduleOfRecord: (id) => prev?.record(id)?.moduleId ?? null,
  });

  const liveMembers = members ?? (plan.membersChanged || plan.accessChanged ? await client.listMembers(ws.id) : null);
  const automations = full || plan.anyChange || due?.workspace ? await client.listWorkspaceAutomations(ws.id) : null;
  const access = (full || plan.accessChanged || plan.membersChanged || due?.workspace) && liveMembers ? await readAccess(client, ws.id, liveMembers) : null;
  const verified: PartRef[] = full || due?.workspace ? [{ workspaceId: ws.id, kind: 'workspace', id: ws.id }] : [];
  if (due) due.figures.requests += wsCalls.calls();

  const toCrawl: Module[] = full ? modules : modules.filter((m) => plan.touched.has(m.id) || due?.modules.has(m.id));
  env.onModulesPlanned(toCrawl.length);
  const crawled = new Set<string>();
  const seenBy = new Map<string, Pick<ModuleCrawlResult, 'memory' | 'liveCollections' | 'deferred' | 'collectionMarks'>>();
  const trace = new RecordTrace();
  trace.add(newRows);
  // (a full pass reads the whole feed: it has every creation row the service still keeps)
  if (prev && !full) for (const rows of storedCreations(prev, newRows)) trace.add(rows, prev.activityStoredAt(rows.map((r) => r.id)));
  // records a new row shows moved or changed: alive, even if this backup saw them go before
  const revived = new Set(newRows.filter((r) => r.recordId && r.collectionId && r.action.startsWith('record_') && r.action !== 'record_deleted').map((r) => r.recordId!));
  // A failure that ends the pass stops modules not yet started, and waits for those in flight:
  // none may still be writing once the pass has returned.
  const fatal: unknown[] = [];
  // A crawled module's batch waits its turn at the writer without holding a crawl slot: the next
  // module is read meanwhile. At most WRITES_WAITING such batches, so memory stays bounded.
  const writes = new PQueue({ concurrency: WRITES_WAITING });
  await Promise.all(
    toCrawl.map(async (m) => {
      let written: Promise<void> | null = null;
      const counted = countCalls(env.client);
      // what the crawl saw, kept past its write; the batch itself is let go once handed over
      let res: Omit<ModuleCrawlResult, 'batch'> | undefined;
      try {
        await env.limitModules(async () => {
          if (env.signal?.aborted || fatal.length) return;
          const inFull = full || plan.added.has(m.id) || due?.modules.has(m.id) === true;
          const { batch, ...seen } = await crawlModule(due?.modules.has(m.id) ? counted.client : env.client, m, prev, {
            mode: inFull ? 'full' : 'incremental',
            namedRecords: plan.namedRecords.get(m.id) ?? new Set(),
            trace,
            recheckSubRecords: plan.recheckSubRecords.has(m.id),
            deferUnlisted: full,
            formerRecords: (ids) => env.store.formerRecords(ids, revived),
          });
          res = seen;
          if (inFull) batch.verified = [{ workspaceId: ws.id, kind: 'module', id: m.id }];
          // the slot is held until the batch has a place in the writer's queue, then freed
          // (boxed: a promise resolved with a promise would wait for it)
          let mine: WriteBatch | null = batch; // the queue holds this task until the write ends
          const place = await new Promise<{ write: Promise<void> }>((handed) => {
            void writes.add(() => {
              const write = env.apply(mine!);
              mine = null;
              handed({ write });
              return write.catch(() => undefined); // surfaces through `written` below
            });
          });
          written = place.write;
        });
        const done = res as Omit<ModuleCrawlResult, 'batch'> | undefined;
        if (!done || !written) return;
        await written;
        crawled.add(m.id);
        outcome.recordProbes += done.probes;
        if (full) seenBy.set(m.id, { memory: done.memory, liveCollections: done.liveCollections, deferred: done.deferred, collectionMarks: done.collectionMarks });
        env.onModuleDone(done.records);
      } catch (e) {
        if (!isModuleLevel(e)) {
          fatal.push(e);
          return;
        }
        if (due?.modules.has(m.id)) due.figures.modules = due.figures.modules.filter((id) => id !== m.id);
        skipModule(env, ws, m, e, outcome);
        env.onModuleDone(0);
      } finally {
        if (due?.modules.has(m.id)) due.figures.requests += counted.calls();
      }
    }),
  );
  if (fatal.length) throw fatal[0];
  if (!full) await refreshStaleReferences(env, prev, modules, toCrawl, new Set([...crawled, ...plan.vanished]));
  return { modules, plan, liveMembers, automations, access, toCrawl, crawled, seenBy, verified };
}

/**
 * A full pass, once the whole feed is in: records the feed names that no listing showed (archived
 * before this backup began, or since) are read by id and kept as archived, module by module.
 */
export async function readArchivedFromFeed(env: PassEnv, ws: Workspace, prev: StateReader | null, parts: CrawledParts, trace: RecordTrace, outcome: WorkspaceOutcome): Promise<void> {
  await Promise.all(
    parts.modules
      .filter((m) => parts.seenBy.has(m.id))
      .map((m) =>
        env.limitModules(async () => {
          if (env.signal?.aborted) return;
          try {
            const res = await readFeedNamedRecords(env.client, m, prev, parts.seenBy.get(m.id)!, trace, (ids) => env.store.formerRecords(ids));
            outcome.recordProbes += res.probes;
            if (res.probes > 0 || res.batch.gone?.length || res.batch.listings?.length) await env.apply(res.batch);
          } catch (e) {
            if (!isModuleLevel(e)) throw e;
            skipModule(env, ws, m, e, outcome);
          }
        }),
      ),
  );
}


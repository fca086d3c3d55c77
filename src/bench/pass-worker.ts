// One measured sync pass in its own process, so peak RSS and event-loop delay belong to it alone.
// Input: a JSON argument; output: one JSON line on stdout.

import { monitorEventLoopDelay } from 'node:perf_hooks';
import { applyRuntimePolicy } from '../config/heap-policy.js';
import { createHttpClient } from '../api/http-client.js';
import { createLogger } from '../config/logger.js';
import { openStore } from '../store/index.js';
import { runPass } from '../sync/pass.js';
import { createReadStream, readFileSync, rmSync } from 'node:fs';
import { deleteWorkspace } from './changes.js';
import { naiveCrawl } from './naive-crawl.js';
import { meterInFlight, type InFlightFigures } from './in-flight.js';
import { restoreModule, restoreWorkspace, rollback } from '../restore/index.js';
import { readModuleLive } from '../sync/live-module.js';
import type { Upserts } from '../store/port.js';

export interface WorkerInput {
  baseUrl: string;
  apiKey: string;
  db: string;
  concurrency: number;
  full: boolean;
  naive?: boolean;
  /** naive crawl: stop after this many modules */
  maxModules?: number;
  /** delete the first module live, then restore it from the database */
  restore?: boolean;
  /** diagnostic: the same pass with every batch discarded unwritten (what the crawl costs alone) */
  discardWrites?: boolean;
  /** diagnostic: the same pass with these kinds' rows taken out of every batch before it is written */
  discardKinds?: Array<keyof Upserts>;
  /** diagnostic: this many calls of the cheapest route (the workspace list) at the concurrency, nothing else */
  rigFloor?: { requests: number };
  /** freshness.maxStalenessMinutes in ms (the CLI's default is 360 minutes) */
  maxStalenessMs?: number;
  /** roll this module back to this snapshot (a dry run first, for the reads the plan needs) */
  rollback?: { moduleId: string; toSnapshot: number };
  /** delete the first workspace live, then restore it whole from the database */
  restoreWorkspace?: boolean;
  /** push an encrypted offsite copy to this S3 endpoint, and the plain export beside it */
  offsite?: { endpoint: string; bucket: string; recipient: string };
}

// measured as the CLI runs: with its heap policy and its threads' priorities
applyRuntimePolicy();
// one JSON document on stdin (it holds the service's key: never on the command line)
const input = JSON.parse(readFileSync(0, 'utf8') || '{}') as WorkerInput;
const loop = monitorEventLoopDelay({ resolution: 5 });
loop.enable();
const client = createHttpClient({ baseUrl: input.baseUrl, apiKey: input.apiKey, concurrency: input.concurrency, retries: 5 });
/** The main thread's CPU time so far in ms (Linux: /proc/thread-self/stat), or null elsewhere. */
function mainThreadCpuMs(): number | null {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
  } catch {
    return null;
  }
}
const started = performance.now();
const cpu0 = process.cpuUsage();
const main0 = mainThreadCpuMs();
/** CPU of the store's writer thread, summed over the batches it answered (see ApplyResult). */
let writerCpuMs: number | null = null;
let out: Record<string, unknown>;
/** How full the request pipe stayed (sync passes). */
let inFlight: InFlightFigures | undefined;
if (input.restore) {
  const store = openStore(input.db);
  const victim = store.stateAt()!.modules()[0];
  await client.deleteModule(victim.id);
  const deps = { client, store, logger: createLogger({ level: 'silent' }) };
  const attribution = 'Restored by wbsync — originally by {author} at {createdAt}.';
  // Not measured: the plan, for how many creates wait on a sibling (ties in position kept in order).
  const dry = await restoreModule(deps, { moduleId: victim.id, attribution, dryRun: true });
  const chainedByPhase = Object.fromEntries(dry.plan!.phases.filter((p) => p.chained > 0).map((p) => [p.name, `${p.chained} of ${p.steps}`]));
  const before = client.stats().requests;
  const t0 = performance.now();
  const res = await restoreModule(deps, { moduleId: victim.id, attribution });
  out = { module: victim.name, counts: res.counts, notRestored: res.notRestored.length, chainedByPhase, restoreRequests: client.stats().requests - before, restoreWallMs: Math.round(performance.now() - t0) };
  store.close();
} else if (input.rollback) {
  const store = openStore(input.db);
  const deps = { client, store, logger: createLogger({ level: 'silent' }), readLive: readModuleLive };
  const opts = { moduleId: input.rollback.moduleId, toSnapshot: input.rollback.toSnapshot, attribution: '' };
  const r0 = client.stats().requests;
  const dry = await rollback(deps, { ...opts, dryRun: true });
  const reads = client.stats().requests - r0;
  const t0 = performance.now();
  const r1 = client.stats().requests;
  const res = await rollback(deps, opts);
  const writes = dry.plan!.writesAtMost;
  out = { rollbackCounts: res.counts, conflicts: res.conflicts.length, planReads: reads, planWrites: writes, rollbackRequests: client.stats().requests - r1, rollbackWallMs: Math.round(performance.now() - t0) };
  store.close();
} else if (input.restoreWorkspace) {
  const store = openStore(input.db);
  const ws = store.stateAt()!.workspaces()[0]!;
  const deps = { client, store, logger: createLogger({ level: 'silent' }) };
  const attribution = 'Restored by wbsync — originally by {author} at {createdAt}.';
  await deleteWorkspace(input.baseUrl, input.apiKey, ws.id);
  const r0 = client.stats().requests;
  const dry = await restoreWorkspace(deps, { workspaceId: ws.id, attribution, dryRun: true });
  const reads = client.stats().requests - r0;
  const t0 = performance.now();
  const r1 = client.stats().requests;
  const res = await restoreWorkspace(deps, { workspaceId: ws.id, attribution });
  out = { modules: res.modules.length, counts: res.counts, notRestored: res.notRestored.length, refused: res.refused, planReads: reads, planWrites: dry.plan!.writesAtMost, restoreRequests: client.stats().requests - r1, restoreWallMs: Math.round(performance.now() - t0) };
  store.close();
} else if (input.offsite) {
  // loaded here only: the measured sync passes must not carry the S3 SDK in their RSS
  const { createS3Store } = await import('../offsite/object-store.js');
  const { pushCopy } = await import('../offsite/offsite.js');
  const store = openStore(input.db, { readonly: true });
  const objects = createS3Store({ bucket: input.offsite.bucket, prefix: 'bench/', endpoint: input.offsite.endpoint, region: 'us-east-1', forcePathStyle: true });
  const t0 = performance.now();
  const m = await pushCopy(store, objects, { prefix: 'bench/', recipients: [input.offsite.recipient] }, new Date());
  const pushMs = performance.now() - t0;
  // the floor: the same export, unencrypted, to the same server
  const plain = `${input.db}.plain`;
  await store.exportTo(plain, m.snapshot, { overwrite: true });
  const t1 = performance.now();
  await objects.put('bench/plain.db', createReadStream(plain), 'application/octet-stream');
  const plainMs = performance.now() - t1;
  rmSync(plain, { force: true });
  objects.close();
  store.close();
  out = { plainBytes: m.plainBytes, bytes: m.bytes, pushMs: Math.round(pushMs), plainUploadMs: Math.round(plainMs) };
} else if (input.rigFloor) {
  // What a request costs here before any of the pass's work: the same client, the same emulator and
  // latency, the smallest answer there is, `concurrency` calls always in flight.
  await client.listWorkspaces();
  const before = client.stats().requests;
  const total = input.rigFloor.requests;
  let asked = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: input.concurrency }, async () => {
      while (asked < total) {
        asked++;
        await client.listWorkspaces();
      }
    }),
  );
  out = { rigRequests: client.stats().requests - before, rigWallMs: Math.round(performance.now() - t0) };
} else if (input.naive) {
  const res = await naiveCrawl(client, input.maxModules ?? Infinity);
  out = { ...res };
} else {
  const store = openStore(input.db);
  const meter = meterInFlight(client, input.concurrency);
  if (input.discardWrites) {
    store.apply = async (_snapshot, b) => ({ written: { record: b.upserts?.records?.length ?? 0, cell: b.upserts?.cells?.length ?? 0 }, gone: {}, unchanged: 0 });
  } else {
    const apply = store.apply.bind(store);
    const dropped = new Set(input.discardKinds ?? []);
    store.apply = async (snapshot, b) => {
      const upserts = b.upserts && dropped.size ? Object.fromEntries(Object.entries(b.upserts).filter(([k]) => !dropped.has(k as keyof Upserts))) : b.upserts;
      const r = await apply(snapshot, upserts === b.upserts ? b : { ...b, upserts });
      if (r.writerCpuMs !== undefined) writerCpuMs = (writerCpuMs ?? 0) + r.writerCpuMs;
      return r;
    };
  }
  const res = await runPass(
    { client: meter.client, store, logger: createLogger({ level: 'silent' }) },
    { full: input.full, feedSlices: input.concurrency, maxStalenessMs: input.maxStalenessMs ?? 360 * 60_000 },
  );
  inFlight = meter.stop();
  store.close();
  out = {
    snapshot: res.snapshot,
    kind: res.kind,
    status: res.status,
    counts: res.counts,
    failures: res.failures.length,
    recordProbes: res.workspaces.reduce((n, w) => n + w.recordProbes, 0),
    reverified: res.workspaces.map((w) => w.reverified ?? null),
  };
}
const wallMs = performance.now() - started;
const main1 = mainThreadCpuMs();
loop.disable();
const stats = client.stats();
await client.close();
process.stdout.write(
  `${JSON.stringify({
    ...out,
    requests: stats.requests - stats.retries,
    retries: stats.retries,
    wallMs: Math.round(wallMs),
    cpuMs: Math.round((process.cpuUsage(cpu0).user + process.cpuUsage(cpu0).system) / 1000),
    // of which the event loop's thread (the syncer) and the writer thread; the rest is V8's and libuv's helpers
    mainThreadCpuMs: main0 === null || main1 === null ? null : Math.round(main1 - main0),
    writerCpuMs: writerCpuMs === null ? null : Math.round(writerCpuMs),
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    eventLoopP99Ms: Math.round((loop.percentile(99) / 1e6) * 10) / 10,
    // what a response waiting for the syncer's loop waits on average (the sampling resolution is 5 ms)
    eventLoopMeanMs: Math.round((loop.mean / 1e6) * 10) / 10,
    ...(inFlight ? { inFlight } : {}),
  })}\n`,
);

// The full pass of `npm run bench`, measured as a reader re-running it would: at concurrency 8 and
// 32, RUNS times each (interleaved, so a change in the machine's load falls on both), each in a
// process of its own into a fresh database, reported as the median with its spread and the load
// average beside every run; CPU per 1,000 entities for the whole process, the syncer (the event
// loop's thread) and the writer thread. Then the crawl alone (batches discarded), the pass with the
// feed's rows unwritten, and the rig's floor (round trips that do nothing), as often.

import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { WorkerInput } from './pass-worker.js';

type Figures = Record<string, any>;

export function judge(f: Figures, concurrency: number, minimum: number, latencyMs: number): Figures {
  const boundMs = (f.requests * latencyMs) / concurrency;
  return {
    concurrency,
    requests: f.requests,
    retries: f.retries,
    minimumRequests: minimum,
    requestsOverMinimum: f.requests - minimum,
    wallMs: f.wallMs,
    latencyBoundMs: Math.round(boundMs),
    wallOverBound: Math.round((f.wallMs / boundMs) * 100) / 100,
    recordsPerSec: Math.round(((f.counts?.record ?? 0) / f.wallMs) * 1000),
    cellsPerSec: Math.round(((f.counts?.cell ?? 0) / f.wallMs) * 1000),
    peakRssMb: f.peakRssMb,
    eventLoopP99Ms: f.eventLoopP99Ms,
    eventLoopMeanMs: f.eventLoopMeanMs,
    /** CPU time of the syncing process (every thread): near wallMs means the pass is CPU-bound here */
    cpuMs: f.cpuMs,
    mainThreadCpuMs: f.mainThreadCpuMs,
    writerCpuMs: f.writerCpuMs,
  };
}

const entitiesOf = (f: Figures): number => Object.values((f.counts ?? {}) as Record<string, number>).reduce((a, b) => a + b, 0);
const round = (x: number, d = 0): number => Math.round(x * 10 ** d) / 10 ** d;
const load = (): number => round(loadavg()[0]!, 2);

/** Median and spread (min–max) of a figure over the runs. */
function spread(xs: number[], d = 2): { median: number; min: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  return { median: round(s[Math.floor((s.length - 1) / 2)]!, d), min: round(s[0]!, d), max: round(s.at(-1)!, d) };
}

export interface Run {
  raw: Figures;
  load1Before: number;
  load1After: number;
}

/** A summary of RUNS passes at one concurrency: the median run in full, then each figure's spread. */
function summarise(runs: Run[], concurrency: number, minimum: number, latencyMs: number, entities?: number): Figures {
  const judged: Figures[] = runs.map((r) => ({ ...judge(r.raw, concurrency, minimum, latencyMs), load1Before: r.load1Before, load1After: r.load1After }));
  const per1000 = (key: string): number[] => runs.map((r) => (r.raw[key] ?? NaN) / ((entities ?? entitiesOf(r.raw)) / 1000));
  const order = [...judged].sort((a, b) => a.wallOverBound - b.wallOverBound);
  return {
    runs: judged.length,
    wallOverBound: spread(judged.map((j) => j.wallOverBound)),
    wallMs: spread(judged.map((j) => j.wallMs), 0),
    entities: entities ?? entitiesOf(runs[0]!.raw),
    cpuMsPer1000Entities: {
      process: spread(per1000('cpuMs'), 1),
      syncer: spread(per1000('mainThreadCpuMs'), 1),
      writer: spread(per1000('writerCpuMs'), 1),
    },
    load1: spread(judged.flatMap((j) => [j.load1Before, j.load1After])),
    ...(runs.every((r) => r.raw.inFlight) ? { inFlight: inFlightSummary(runs) } : {}),
    median: order[Math.floor((order.length - 1) / 2)],
    each: judged.map((j) => ({ wallMs: j.wallMs, wallOverBound: j.wallOverBound, requests: j.requests, cpuMs: j.cpuMs, mainThreadCpuMs: j.mainThreadCpuMs, writerCpuMs: j.writerCpuMs, load1Before: j.load1Before, load1After: j.load1After })),
  };
}

/**
 * How full the request pipe stayed (see in-flight.ts). By Little's law wall ÷ bound = (time a
 * request spends on the wire ÷ the injected latency) × (concurrency ÷ mean requests on the wire):
 * the first factor is what the service, the network and the two event loops add to each request,
 * the second what the pass's own structure leaves unused.
 */
function inFlightSummary(runs: Run[]): Figures {
  const f = runs.map((r) => r.raw.inFlight as { meanOnWire: number; atBound: number; underHalf: number; byTenth: number[] });
  const order = [...runs.keys()].sort((a, b) => f[a]!.meanOnWire - f[b]!.meanOnWire);
  return {
    meanOnWire: spread(f.map((x) => x.meanOnWire), 1),
    shareAtBound: spread(f.map((x) => x.atBound)),
    shareUnderHalf: spread(f.map((x) => x.underHalf)),
    requestOnWireMs: spread(runs.map((r, i) => (f[i]!.meanOnWire * r.raw.wallMs) / r.raw.requests), 1),
    medianRunByTenth: f[order[Math.floor((order.length - 1) / 2)]!]!.byTenth,
  };
}

/** Calls of the cheapest route per rig-floor run: enough for a steady figure, a few seconds each. */
const RIG_REQUESTS = 5000;

/** The rig floor's runs: wall ÷ bound of calls that do no work but the round trip. */
export function rigFloor(runs: Run[], latencyMs: number): Figures {
  const ratios = runs.map((r) => (r.raw.rigWallMs as number) / (((r.raw.rigRequests as number) * latencyMs) / 32));
  return {
    runs: runs.length,
    requests: runs[0]?.raw.rigRequests,
    wallOverBound: spread(ratios),
    load1: spread(runs.flatMap((r) => [r.load1Before, r.load1After])),
    note: 'diagnostic: the workspace list asked at concurrency 32, nothing else: what this machine, the emulator and the HTTP client add to a round trip before any of the pass\'s own work',
  };
}

export interface FullPassInput {
  runWorker: (input: WorkerInput) => Figures;
  base: { baseUrl: string; apiKey: string };
  dir: string;
  runs: number;
  latencyMs: number;
  /** The fewest requests the dataset needs, from a database a pass wrote. */
  minimumOf: (dbPath: string) => { minimum: number; shape: Figures };
  say: (s: string) => void;
}

/** The full pass figures, and the database of the last pass at concurrency 32 (the sections after read it). */
export function measureFullPasses(input: FullPassInput): { figures: Figures; shape: Figures; c8Db: string; c32Db: string; c32: Figures } {
  const { runWorker, base, dir, runs, latencyMs } = input;
  const c8: Run[] = [];
  const c32: Run[] = [];
  const bare: Run[] = [];
  const feedUnwritten: Run[] = [];
  const rig: Run[] = [];
  const one = (into: Run[], w: WorkerInput): Figures => {
    const before = load();
    const raw = runWorker(w);
    into.push({ raw, load1Before: before, load1After: load() });
    return raw;
  };
  for (let i = 1; i <= runs; i++) {
    input.say(`bench: full pass ${i}/${runs} at concurrency 8, then 32, then 32 with writes discarded...\n`);
    one(c8, { ...base, full: true, db: join(dir, i === runs ? 'c8.db' : `c8-${i}.db`), concurrency: 8 });
    one(c32, { ...base, full: true, db: join(dir, i === runs ? 'c32.db' : `c32-${i}.db`), concurrency: 32 });
    one(bare, { ...base, full: true, db: join(dir, `bare-${i}.db`), concurrency: 32, discardWrites: true });
    one(feedUnwritten, { ...base, full: true, db: join(dir, `feed-unwritten-${i}.db`), concurrency: 32, discardKinds: ['activity'] });
    one(rig, { ...base, full: false, db: join(dir, `rig-${i}.db`), concurrency: 32, rigFloor: { requests: RIG_REQUESTS } });
  }
  const { minimum, shape } = input.minimumOf(join(dir, 'c8.db'));
  const c32Summary = summarise(c32, 32, minimum, latencyMs);
  // the crawl alone stores nothing, so its counts say little: per 1,000 entities of the real pass
  const bareSummary = summarise(bare, 32, minimum, latencyMs, entitiesOf(c32[0]!.raw));
  return {
    shape,
    c8Db: join(dir, 'c8.db'),
    c32Db: join(dir, 'c32.db'),
    c32: c32[runs - 1]!.raw,
    figures: {
      c8: summarise(c8, 8, minimum, latencyMs),
      c32: c32Summary,
      c32CrawlAlone: { ...bareSummary, note: 'diagnostic: batches discarded unwritten; the floor this machine sets' },
      c32OverCrawlAlone: round(c32Summary.wallOverBound.median / bareSummary.wallOverBound.median, 2),
      c32FeedUnwritten: {
        ...summarise(feedUnwritten, 32, minimum, latencyMs, entitiesOf(c32[0]!.raw)),
        note: "diagnostic: the same pass with the activity feed's rows read but not written (every other row written): the share of the gap that is the feed's writes",
      },
      c32RigFloor: rigFloor(rig, latencyMs),
      targets: { c8WallOverBound: 1.25, c32WallOverBound: 1.4 },
    },
  };
}

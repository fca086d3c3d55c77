// `npm run bench`: sync figures against the emulator with injected latency, printed as one JSON
// document. Targets (see README): requests = the minimum; wall <= 1.25 x latency bound;
// event-loop p99 <= 50 ms; peak RSS <= 250 MB and set by the largest module; incremental cost;
// the daemon: a scrape of /metrics <= 10 ms and no RSS growth over a soak.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { drillFigures } from './drill-bench.js';
import { offsiteFigures } from './offsite-bench.js';
import { pruneFigures } from './prune-bench.js';
import { eraseSection } from './erase-bench.js';
import { applyMixedChanges } from './changes.js';
import { startEmulatorChild } from './emulator-child.js';
import { ensureHistoryDb, measureExport, timeReporting } from './reporting.js';
import { measureWriteSide } from './write-side.js';
import { measureFullPasses } from './full-pass.js';
import { uiFigures } from './ui-bench.js';
import { tripwireSection } from './tripwire-bench.js';
import { fleetBenchOptions, fleetSection } from './fleet-bench.js';
import type { WorkerInput } from './pass-worker.js';
import { fleetMoveFigures } from './fleet-move-bench.js';
import { largeSeedFigures, minimumRequests, observedFigures, restoreWorkspaceFigures, reverifyRequests, twiceAsLargeFigures, type BenchContext, type Figures } from './full-run.js';
import { NODE_FLAGS } from '../config/heap-policy.js';

const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 20);
/** BENCH_ONLY=full|incremental|reporting|drill|ui|erase|tripwire|fleet|fleetMove runs only that section (see SECTIONS below). */
const ONLY = process.env.BENCH_ONLY;
/** Full passes at each concurrency (default 3): the figures are their median and spread. */
const FULL_RUNS = Number(process.env.BENCH_FULL_RUNS ?? 3);
/** Incremental passes of history behind the reporting figures (default 100). */
const HISTORY_PASSES = Number(process.env.BENCH_HISTORY_PASSES ?? 100);
/** Modules of the large seed behind the reporting figures (default 20: 10,000 records); for scaling runs. */
const HISTORY_MODULES = Number(process.env.BENCH_HISTORY_MODULES ?? 20);
/** Keep (or reuse, if it exists) the history database at this path instead of a temporary one. */
const HISTORY_DB = process.env.BENCH_HISTORY_DB;
const WORKER = fileURLToPath(new URL('./pass-worker.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'wbsync-bench-'));

function runWorker(input: WorkerInput): Figures {
  // the input (it holds the service's key) goes through stdin, never the command line
  const out = execFileSync(process.execPath, [...NODE_FLAGS, WORKER], { input: JSON.stringify(input), encoding: 'utf8', maxBuffer: 1 << 24 });
  return JSON.parse(out.trim().split('\n').pop()!);
}

/**
 * Reporting at scale: the large seed after HISTORY_PASSES incremental passes (no injected latency:
 * the point is the history, not the crawl), each README query and typical view access timed.
 */
async function reportingFigures(): Promise<Figures> {
  const dbPath = HISTORY_DB ?? join(dir, 'history.db');
  const built = await ensureHistoryDb(dbPath, HISTORY_PASSES, HISTORY_MODULES, 'reporting');
  const build: Figures = built === 'reused' ? { reused: dbPath } : built;
  process.stderr.write('bench: reporting: README queries and view accesses...\n');
  const figures: Figures = { modules: HISTORY_MODULES, history: build, ...timeReporting(dbPath), targetMs: 100 };
  process.stderr.write('bench: reporting: export --format csv and jsonl...\n');
  figures.export = { csv: measureExport(dbPath, 'csv'), jsonl: measureExport(dbPath, 'jsonl'), targetRowsPerSec: 100_000 };
  process.stderr.write('bench: write side: the store against plain inserts of the same rows...\n');
  figures.writeSide = { ...(await measureWriteSide(dbPath)), targetOverFloor: 2 };
  return figures;
}

/** `BENCH_ONLY=full`: the full passes alone (c8 and c32, FULL_RUNS each, and the crawl alone). */
async function fullPassSection(): Promise<Figures> {
  const emu = await startEmulatorChild(['--seed', 'large', '--latency-ms', String(LATENCY_MS)]);
  try {
    const passes = measureFullPasses({
      runWorker, base: { baseUrl: emu.baseUrl, apiKey: emu.apiKey }, dir, runs: FULL_RUNS, latencyMs: LATENCY_MS, say: (x) => process.stderr.write(x),
      minimumOf: (db) => {
        const m = minimumRequests(db);
        return { minimum: m.minimum, shape: m.shape };
      },
    });
    return { dataset: passes.shape, ...passes.figures };
  } finally {
    await emu.stop();
  }
}

/** Sections BENCH_ONLY can run alone that the full run measures in its first part instead. */
const ONLY_SECTIONS: Record<string, () => Promise<Figures>> = { full: fullPassSection };

/**
 * BENCH_ONLY=incremental: the incremental figures alone (the large seed, both dialects): requests of
 * a pass after 50 mixed changes in 5 modules, and in the observed dialect with one write in four a
 * sub-record's unlogged completion or position — what re-listing sub-records costs.
 */
async function incrementalFigures(): Promise<Figures> {
  const out: Figures = {};
  for (const dialect of ['spec', 'observed'] as const) {
    const emu = await startEmulatorChild(['--seed', 'large', '--dialect', dialect, '--latency-ms', String(LATENCY_MS)]);
    try {
      const base = { baseUrl: emu.baseUrl, apiKey: emu.apiKey, full: false, db: join(dir, `inc-${dialect}.db`), concurrency: 8 };
      const fullPass = runWorker({ ...base, full: true, concurrency: 32 });
      const plain = await applyMixedChanges(emu.baseUrl, emu.apiKey, 50, 5);
      const a = runWorker(base);
      const row: Figures = { fullPassRequests: fullPass.requests, after50Changes: { changes: plain, requests: a.requests, ofWhichReverification: reverifyRequests(a), wallMs: a.wallMs } };
      if (dialect === 'observed') {
        const withSubs = await applyMixedChanges(emu.baseUrl, emu.apiKey, 50, 5, { subRecords: true });
        const b = runWorker(base);
        row.after50ChangesWithUnloggedSubRecords = { changes: withSubs, requests: b.requests, ofWhichReverification: reverifyRequests(b), wallMs: b.wallMs };
      }
      const idle = runWorker(base);
      row.nothingChanged = { requests: idle.requests, ofWhichReverification: reverifyRequests(idle) };
      out[dialect] = row;
    } finally {
      await emu.stop();
    }
  }
  return out;
}

/** The sections BENCH_ONLY can run alone; the full run ends with each of them, in this order. */
const SECTIONS: Record<string, () => Promise<Figures>> = {
  incremental: incrementalFigures,
  reporting: reportingFigures,
  drill: drillFigures,
  ui: () =>
    uiFigures({ dir, historyDb: HISTORY_DB ?? join(dir, 'history.db'), historyPasses: HISTORY_PASSES, historyModules: HISTORY_MODULES, daemonPasses: Number(process.env.BENCH_UI_DAEMON_PASSES ?? 6), pagePauseMs: Number(process.env.BENCH_UI_PAGE_PAUSE_MS ?? 500) }),
  erase: () => eraseSection({ dir, historyDb: HISTORY_DB ?? join(dir, 'history.db'), historyPasses: HISTORY_PASSES, historyModules: HISTORY_MODULES }),
  tripwire: () => tripwireSection({ historyDb: HISTORY_DB ?? join(dir, 'history.db'), historyPasses: HISTORY_PASSES, historyModules: HISTORY_MODULES }),
  fleet: () => fleetSection(fleetBenchOptions(LATENCY_MS, (x) => process.stderr.write(x))),
  fleetMove: fleetMoveFigures,
};

async function main(): Promise<void> {
  const report: Figures = { latencyMs: LATENCY_MS, seed: 'large' };
  const only = ONLY ? (SECTIONS[ONLY] ?? ONLY_SECTIONS[ONLY]) : undefined;
  if (ONLY) {
    if (!only) throw new Error(`BENCH_ONLY=${ONLY}: expected one of ${[...Object.keys(ONLY_SECTIONS), ...Object.keys(SECTIONS)].join(', ')}`);
    report[ONLY] = await only();
    rmSync(dir, { recursive: true, force: true });
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  const ctx: BenchContext = { dir, latencyMs: LATENCY_MS, fullRuns: FULL_RUNS, runWorker };
  await largeSeedFigures(ctx, report);
  report.observed = await observedFigures(ctx);
  report.restoreWorkspace = await restoreWorkspaceFigures(ctx);
  report.peakRss = await twiceAsLargeFigures(ctx, report.full.c32.median.peakRssMb);
  process.stderr.write('bench: offsite push of the large database to S3 (s3rver on loopback)...\n');
  report.offsite = await offsiteFigures(join(dir, 'c32.db'), dir, WORKER);

  process.stderr.write('bench: 1,000 snapshots of changes on the large database, then prune...\n');
  report.retention = await pruneFigures(join(dir, 'c32.db'), join(dir, 'prune.db'));
  for (const [name, section] of Object.entries(SECTIONS)) report[name] = await section();
  rmSync(dir, { recursive: true, force: true });
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

await main();

// `npm run bench`: sync figures against the emulator with injected latency, printed as one JSON
// document. Targets (see README): requests = the minimum; wall <= 1.25 x latency bound;
// event-loop p99 <= 50 ms; peak RSS <= 250 MB and set by the largest module; incremental cost;
// the daemon: a scrape of /metrics <= 10 ms and no RSS growth over a soak.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { drillFigures } from './drill-bench.js';
import { offsiteFigures } from './offsite-bench.js';
import { pruneFigures } from './prune-bench.js';
import { eraseSection } from './erase-bench.js';
import { applyBulkOverwrite, applyMixedChanges } from './changes.js';
import { measureDaemonScrapes } from './daemon-scrape.js';
import { startEmulatorChild, type EmulatorChild } from './emulator-child.js';
import { ensureHistoryDb, measureExport, timeReporting } from './reporting.js';
import { measureWriteSide } from './write-side.js';
import { measureFullPasses } from './full-pass.js';
import { uiFigures } from './ui-bench.js';
import { tripwireSection } from './tripwire-bench.js';
import { fleetBenchOptions, fleetSection } from './fleet-bench.js';
import { openStore } from '../store/index.js';
import { moduleWeight, planReverification } from '../sync/reverify-plan.js';
import type { WorkerInput } from './pass-worker.js';
import { fleetMoveFigures } from './fleet-move-bench.js';

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

type Figures = Record<string, any>;

function runWorker(input: WorkerInput): Figures {
  // the input (it holds the service's key) goes through stdin, never the command line
  const out = execFileSync(process.execPath, [WORKER], { input: JSON.stringify(input), encoding: 'utf8', maxBuffer: 1 << 24 });
  return JSON.parse(out.trim().split('\n').pop()!);
}

/** The fewest requests a lossless full pass of this dataset needs, from its shape. */
function minimumRequests(dbPath: string): Figures {
  const db = new Database(dbPath, { readonly: true });
  const one = (sql: string): number => (db.prepare(sql).pluck().get() as number) ?? 0;
  const shape = {
    workspaces: one('SELECT COUNT(*) FROM workspaces'),
    members: one('SELECT COUNT(*) FROM members'),
    modules: one('SELECT COUNT(*) FROM modules'),
    collections: one('SELECT COUNT(*) FROM collections'),
    records: one('SELECT COUNT(*) FROM records WHERE parent_record_id IS NULL'),
    archived: one('SELECT COUNT(*) FROM records WHERE parent_record_id IS NULL AND is_archived = 1'),
    subRecords: one('SELECT COUNT(*) FROM records WHERE parent_record_id IS NOT NULL'),
    withSubRecords: one('SELECT COUNT(*) FROM records WHERE sub_record_count > 0'),
    withAmendments: one('SELECT COUNT(*) FROM records WHERE amendment_count > 0'),
    activityRows: one('SELECT COUNT(*) FROM activity'),
    cells: one('SELECT COUNT(*) FROM cells'),
    modulesWithReferences: one("SELECT COUNT(DISTINCT module_id) FROM columns WHERE type IN ('relation', 'reference')"),
  };
  db.close();
  const activityPages = Math.max(1, Math.ceil(shape.activityRows / 100));
  const minimum =
    1 + // workspaces
    shape.workspaces * 3 + // members, modules, workspace automations
    shape.members + // module-access grants per member
    activityPages +
    shape.modules * 4 + // collections, columns x2, module automations
    shape.modulesWithReferences + // resolved references
    shape.collections + // one record list per collection
    shape.records + shape.subRecords + // one cell read per record and sub-record
    shape.archived * 2 + // an archived record is read by id: its sub-records and thread too
    shape.withSubRecords +
    shape.withAmendments;
  return { shape, activityPages, minimum };
}

/** Requests a pass spent on the freshness window's re-verification (part of its total). */
function reverifyRequests(f: Figures): number {
  return ((f.reverified ?? []) as Array<{ requests?: number } | null>).reduce((n, r) => n + (r?.requests ?? 0), 0);
}

/** A restore at concurrency 8: requests and wall time against the latency bound (requests × latency / 8). */
function restoreFigures(rest: Figures): Figures {
  const bound = (rest.restoreRequests * LATENCY_MS) / 8;
  return {
    module: rest.module,
    counts: rest.counts,
    notRestored: rest.notRestored,
    chainedByPhase: rest.chainedByPhase,
    concurrency: 8,
    requests: rest.restoreRequests,
    wallMs: rest.restoreWallMs,
    latencyBoundMs: Math.round(bound),
    wallOverBound: Math.round((rest.restoreWallMs / bound) * 100) / 100,
    sequentialMs: rest.restoreRequests * LATENCY_MS,
  };
}

/**
 * The rolling re-verification over a simulated day at the default window (360 minutes) and the
 * default schedule (a pass every 5 minutes), with the real module sizes of the synced seed.
 */
function reverificationFigures(dbPath: string, fullPassRequests: number): Figures {
  const WINDOW = 360 * 60_000;
  const EVERY = 5 * 60_000;
  const store = openStore(dbPath, { readonly: true });
  try {
    const state = store.stateAt()!;
    const ws = state.workspaces()[0]!;
    const sizes = state.moduleSizes(ws.id);
    const fullSnap = store.listSnapshots().filter((x) => x.kind === 'full' && x.status === 'complete').pop()!;
    const parts = [
      { kind: 'workspace' as const, id: ws.id, verifiedAtMs: 0, weight: 2 + state.members(ws.id).length },
      ...[...sizes].map(([id, size]) => ({ kind: 'module' as const, id, verifiedAtMs: 0, weight: moduleWeight(size) })),
    ];
    const perPass: number[] = [];
    let maxAge = 0;
    let last = 0;
    for (let t = EVERY; t <= 24 * 3_600_000; t += EVERY) {
      const plan = planReverification({ parts, nowMs: t, lastPassMs: last, windowMs: WINDOW });
      maxAge = Math.max(maxAge, plan.oldestAgeMs);
      let spent = 0;
      for (const c of plan.chosen) {
        parts.find((p) => p.id === c.id)!.verifiedAtMs = t;
        spent += c.weight;
      }
      perPass.push(spent);
      last = t;
    }
    const total = parts.reduce((n, p) => n + p.weight, 0);
    const perWindow = perPass.reduce((a, b) => a + b, 0) / (24 / 6);
    return {
      windowMinutes: 360,
      passEveryMinutes: 5,
      fullPassStartedAt: fullSnap.startedAt,
      workspaceWeight: total,
      fullPassRequests,
      perPass: { mean: Math.round(perWindow / (WINDOW / EVERY)), max: Math.max(...perPass), passesWithNone: perPass.filter((n) => n === 0).length, passes: perPass.length },
      perWindowRequests: Math.round(perWindow),
      perWindowOverFullPass: Math.round((perWindow / fullPassRequests) * 100) / 100,
      oldestAgeMinutes: Math.round(maxAge / 60_000),
      note: 'simulated over 24 h with the real module sizes (estimated requests per module); measuredPass is one real pass given the same budget share',
    };
  } finally {
    store.close();
  }
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
  let emu: EmulatorChild = await startEmulatorChild(['--seed', 'large', '--latency-ms', String(LATENCY_MS)]);
  try {
    const base = { baseUrl: emu.baseUrl, apiKey: emu.apiKey, full: true };
    const passes = measureFullPasses({
      runWorker, base, dir, runs: FULL_RUNS, latencyMs: LATENCY_MS, say: (x) => process.stderr.write(x),
      minimumOf: (db) => {
        const m = minimumRequests(db);
        return { minimum: m.minimum, shape: m.shape };
      },
    });
    const c32 = passes.c32;
    report.dataset = passes.shape;
    report.full = passes.figures;

    process.stderr.write('bench: naive sequential crawler (1 module, extrapolated)...\n');
    const naive = runWorker({ ...base, db: join(dir, 'naive.db'), concurrency: 1, naive: true, maxModules: 1 });
    const scale = passes.shape.modules / Math.max(1, naive.modules);
    report.naive = {
      measuredModules: naive.modules,
      requests: naive.requests,
      wallMs: naive.wallMs,
      extrapolatedRequests: Math.round(naive.requests * scale),
      extrapolatedWallMs: Math.round(naive.wallMs * scale),
      speedupAtC32: Math.round(((naive.wallMs * scale) / c32.wallMs) * 10) / 10,
    };

    process.stderr.write('bench: incremental after 50 mixed changes...\n');
    const changes = await applyMixedChanges(emu.baseUrl, emu.apiKey, 50, 5);
    const inc = runWorker({ ...base, full: false, db: join(dir, 'c32.db'), concurrency: 8 });
    const target = 3 * (changes.writes + changes.collectionsOfTouched) + 4 * changes.workspaces;
    const idle = runWorker({ ...base, full: false, db: join(dir, 'c32.db'), concurrency: 8 });
    report.incremental = {
      changes,
      kind: inc.kind,
      requests: inc.requests,
      ofWhichReverification: reverifyRequests(inc),
      requestTarget: target,
      ratioToFull: Math.round((inc.requests / c32.requests) * 10000) / 100 + '%',
      wallMs: inc.wallMs,
      nothingChanged: { kind: idle.kind, requests: idle.requests, ofWhichReverification: reverifyRequests(idle), perWorkspace: idle.requests / changes.workspaces, wallMs: idle.wallMs },
    };
    report.incremental.fullPassRecordProbes = {
      fullPass: c32.recordProbes,
      archivedRecords: passes.shape.archived,
      note: 'first full pass: requests reading records no listing shows (at most 3 per archived record found, 1 per deleted one)',
    };

    process.stderr.write('bench: re-verification at the default window...\n');
    report.reverification = reverificationFigures(join(dir, 'c32.db'), c32.requests);
    // one real pass with the share of the window a 5-minute schedule gives at 360 minutes
    const sinceFull = Date.now() - Date.parse(report.reverification.fullPassStartedAt);
    const measured = runWorker({ ...base, full: false, db: join(dir, 'c32.db'), concurrency: 8, maxStalenessMs: Math.max(60_000, Math.round((sinceFull * 360) / 5)) });
    report.reverification.measuredPass = { requests: measured.requests, reverified: measured.reverified, wallMs: measured.wallMs };

    process.stderr.write('bench: restore a deleted module...\n');
    report.restore = restoreFigures(runWorker({ ...base, restore: true, db: join(dir, 'c32.db'), concurrency: 8 }));

    process.stderr.write('bench: roll back a bulk overwrite (500 cells, 100 renames)...\n');
    const db32 = new Database(join(dir, 'c32.db'), { readonly: true });
    const good = db32.prepare(`SELECT max(id) FROM snapshot_runs WHERE status = 'complete'`).pluck().get() as number;
    const victimId = db32.prepare(`SELECT id FROM modules ORDER BY name LIMIT 1 OFFSET 1`).pluck().get() as string;
    db32.close();
    const damage = await applyBulkOverwrite(emu.baseUrl, emu.apiKey, victimId, 500, 100);
    runWorker({ ...base, full: false, db: join(dir, 'c32.db'), concurrency: 8 });
    const rb = runWorker({ ...base, db: join(dir, 'c32.db'), concurrency: 8, rollback: { moduleId: victimId, toSnapshot: good } });
    const minimum = rb.planReads + rb.planWrites;
    const rbBound = (rb.rollbackRequests * LATENCY_MS) / 8;
    report.rollback = {
      damage,
      counts: rb.rollbackCounts,
      conflicts: rb.conflicts,
      concurrency: 8,
      requests: rb.rollbackRequests,
      minimum: { reads: rb.planReads, writes: rb.planWrites, total: minimum, note: 'reads: the live module as a dry run reads it; writes: what the plan sends' },
      requestsOverMinimum: Math.round((rb.rollbackRequests / minimum) * 100) / 100,
      wallMs: rb.rollbackWallMs,
      latencyBoundMs: Math.round(rbBound),
      wallOverBound: Math.round((rb.rollbackWallMs / rbBound) * 100) / 100,
    };

    process.stderr.write('bench: the daemon on the large seed, scraped as Prometheus does, over a soak...\n');
    report.daemon = await measureDaemonScrapes({ baseUrl: emu.baseUrl, apiKey: emu.apiKey, db: join(dir, 'c32.db'), dir, soakSeconds: Number(process.env.BENCH_SOAK_SECONDS ?? 60) });
  } finally {
    await emu.stop();
  }

  process.stderr.write('bench: observed dialect, incremental with unlogged sub-record changes...\n');
  emu = await startEmulatorChild(['--seed', 'large', '--dialect', 'observed', '--latency-ms', String(LATENCY_MS)]);
  try {
    const base = { baseUrl: emu.baseUrl, apiKey: emu.apiKey, full: false, db: join(dir, 'observed.db'), concurrency: 8 };
    runWorker({ ...base, full: true, concurrency: 32 });
    const plain = await applyMixedChanges(emu.baseUrl, emu.apiKey, 50, 5);
    const a = runWorker(base);
    const withSubs = await applyMixedChanges(emu.baseUrl, emu.apiKey, 50, 5, { subRecords: true });
    const b = runWorker(base);
    const idle = runWorker(base);
    report.observed = {
      after50Changes: { changes: plain, requests: a.requests, ofWhichReverification: reverifyRequests(a), wallMs: a.wallMs },
      after50ChangesWithUnloggedSubRecords: { changes: withSubs, requests: b.requests, ofWhichReverification: reverifyRequests(b), wallMs: b.wallMs, note: 'one write in four is a sub-record completion or position (unlogged): its module re-lists every parent\'s sub-records' },
      nothingChanged: { requests: idle.requests, ofWhichReverification: reverifyRequests(idle) },
    };
    process.stderr.write('bench: observed dialect, restore a deleted module (columns and collections all tied at 0)...\n');
    report.observed.restore = restoreFigures(runWorker({ ...base, restore: true }));
  } finally {
    await emu.stop();
  }

  process.stderr.write('bench: restore a deleted workspace of 5 modules...\n');
  emu = await startEmulatorChild(['--seed', 'large', '--modules', '5', '--latency-ms', String(LATENCY_MS)]);
  try {
    const base = { baseUrl: emu.baseUrl, apiKey: emu.apiKey, db: join(dir, 'ws5.db'), concurrency: 8 };
    runWorker({ ...base, full: true, concurrency: 32 });
    const w = runWorker({ ...base, full: false, restoreWorkspace: true });
    const minimum = w.planReads + w.planWrites;
    const bound = (w.restoreRequests * LATENCY_MS) / 8;
    report.restoreWorkspace = {
      modules: w.modules,
      counts: w.counts,
      notRestored: w.notRestored,
      refused: w.refused,
      concurrency: 8,
      requests: w.restoreRequests,
      minimum: { reads: w.planReads, writes: w.planWrites, total: minimum, note: 'reads: what a dry run reads; writes: what the plan sends at most' },
      wallMs: w.restoreWallMs,
      latencyBoundMs: Math.round(bound),
      wallOverBound: Math.round((w.restoreWallMs / bound) * 100) / 100,
    };
  } finally {
    await emu.stop();
  }

  process.stderr.write('bench: a seed twice as large (peak RSS)...\n');
  emu = await startEmulatorChild(['--seed', 'large', '--modules', '40', '--latency-ms', String(LATENCY_MS)]);
  try {
    const twice = runWorker({ baseUrl: emu.baseUrl, apiKey: emu.apiKey, full: true, db: join(dir, 'twice.db'), concurrency: 32 });
    report.peakRss = { largeMb: report.full.c32.median.peakRssMb, twiceAsLargeMb: twice.peakRssMb, twiceWallMs: twice.wallMs };
  } finally {
    await emu.stop();
  }
  process.stderr.write('bench: offsite push of the large database to S3 (s3rver on loopback)...\n');
  report.offsite = await offsiteFigures(join(dir, 'c32.db'), dir, WORKER);

  process.stderr.write('bench: 1,000 snapshots of changes on the large database, then prune...\n');
  report.retention = await pruneFigures(join(dir, 'c32.db'), join(dir, 'prune.db'));
  for (const [name, section] of Object.entries(SECTIONS)) report[name] = await section();
  rmSync(dir, { recursive: true, force: true });
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

await main();

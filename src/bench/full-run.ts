// The first part of the full `npm run bench` (src/bench/run.ts): the large seed's full passes, a
// naive crawler, incremental passes, the re-verification window, a restore, a rollback and the daemon;
// then the observed dialect, a deleted workspace restored, and a seed twice as large.

import { join } from 'node:path';
import Database from 'better-sqlite3';
import { applyBulkOverwrite, applyMixedChanges } from './changes.js';
import { measureDaemonScrapes } from './daemon-scrape.js';
import { startEmulatorChild, type EmulatorChild } from './emulator-child.js';
import { measureFullPasses } from './full-pass.js';
import type { WorkerInput } from './pass-worker.js';
import { openStore } from '../store/index.js';
import { moduleWeight, planReverification } from '../sync/reverify-plan.js';

export type Figures = Record<string, any>;

/** What every part of the run shares: its temp folder, the injected latency, the pass worker. */
export interface BenchContext {
  dir: string;
  latencyMs: number;
  /** Full passes at each concurrency. */
  fullRuns: number;
  runWorker(input: WorkerInput): Figures;
}

type Base = { baseUrl: string; apiKey: string; full: boolean };

/** The fewest requests a lossless full pass of this dataset needs, from its shape. */
export function minimumRequests(dbPath: string): Figures {
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
export function reverifyRequests(f: Figures): number {
  return ((f.reverified ?? []) as Array<{ requests?: number } | null>).reduce((n, r) => n + (r?.requests ?? 0), 0);
}

/** A restore at concurrency 8: requests and wall time against the latency bound (requests × latency / 8). */
export function restoreFigures(rest: Figures, latencyMs: number): Figures {
  const bound = (rest.restoreRequests * latencyMs) / 8;
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
    sequentialMs: rest.restoreRequests * latencyMs,
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

/** The large seed: full passes at c8 and c32, a naive crawler, incremental passes, the re-verification
 * window, a restore, a rollback, and the daemon scraped over a soak; written into `report`. */
export async function largeSeedFigures(ctx: BenchContext, report: Figures): Promise<void> {
  const { dir, latencyMs, runWorker } = ctx;
  const emu = await startEmulatorChild(['--seed', 'large', '--latency-ms', String(latencyMs)]);
  try {
    const base = { baseUrl: emu.baseUrl, apiKey: emu.apiKey, full: true };
    const passes = measureFullPasses({
      runWorker, base, dir, runs: ctx.fullRuns, latencyMs, say: (x) => process.stderr.write(x),
      minimumOf: (db) => {
        const m = minimumRequests(db);
        return { minimum: m.minimum, shape: m.shape };
      },
    });
    const c32 = passes.c32;
    report.dataset = passes.shape;
    report.full = passes.figures;
    report.naive = naiveFigures(ctx, base, passes.shape, c32);
    report.incremental = await incrementalAfterChanges(ctx, emu, base, passes.shape, c32);
    report.reverification = reverificationSection(ctx, base, c32);

    process.stderr.write('bench: restore a deleted module...\n');
    report.restore = restoreFigures(runWorker({ ...base, restore: true, db: join(dir, 'c32.db'), concurrency: 8 }), latencyMs);
    report.rollback = await rollbackFigures(ctx, emu, base);

    process.stderr.write('bench: the daemon on the large seed, scraped as Prometheus does, over a soak...\n');
    report.daemon = await measureDaemonScrapes({ baseUrl: emu.baseUrl, apiKey: emu.apiKey, db: join(dir, 'c32.db'), dir, soakSeconds: Number(process.env.BENCH_SOAK_SECONDS ?? 60) });
  } finally {
    await emu.stop();
  }
}

/** A naive sequential crawler on one module, extrapolated to the seed. */
function naiveFigures(ctx: BenchContext, base: Base, shape: Figures, c32: Figures): Figures {
  process.stderr.write('bench: naive sequential crawler (1 module, extrapolated)...\n');
  const naive = ctx.runWorker({ ...base, db: join(ctx.dir, 'naive.db'), concurrency: 1, naive: true, maxModules: 1 });
  const scale = shape.modules / Math.max(1, naive.modules);
  return {
    measuredModules: naive.modules,
    requests: naive.requests,
    wallMs: naive.wallMs,
    extrapolatedRequests: Math.round(naive.requests * scale),
    extrapolatedWallMs: Math.round(naive.wallMs * scale),
    speedupAtC32: Math.round(((naive.wallMs * scale) / c32.wallMs) * 10) / 10,
  };
}

/** An incremental pass after 50 mixed changes in 5 modules, then one with nothing changed. */
async function incrementalAfterChanges(ctx: BenchContext, emu: EmulatorChild, base: Base, shape: Figures, c32: Figures): Promise<Figures> {
  const { dir, runWorker } = ctx;
  process.stderr.write('bench: incremental after 50 mixed changes...\n');
  const changes = await applyMixedChanges(emu.baseUrl, emu.apiKey, 50, 5);
  const inc = runWorker({ ...base, full: false, db: join(dir, 'c32.db'), concurrency: 8 });
  const target = 3 * (changes.writes + changes.collectionsOfTouched) + 4 * changes.workspaces;
  const idle = runWorker({ ...base, full: false, db: join(dir, 'c32.db'), concurrency: 8 });
  return {
    changes,
    kind: inc.kind,
    requests: inc.requests,
    ofWhichReverification: reverifyRequests(inc),
    requestTarget: target,
    ratioToFull: Math.round((inc.requests / c32.requests) * 10000) / 100 + '%',
    wallMs: inc.wallMs,
    nothingChanged: { kind: idle.kind, requests: idle.requests, ofWhichReverification: reverifyRequests(idle), perWorkspace: idle.requests / changes.workspaces, wallMs: idle.wallMs },
    fullPassRecordProbes: {
      fullPass: c32.recordProbes,
      archivedRecords: shape.archived,
      note: 'first full pass: requests reading records no listing shows (at most 3 per archived record found, 1 per deleted one)',
    },
  };
}

/** The re-verification window simulated over a day, and one real pass given the same share. */
function reverificationSection(ctx: BenchContext, base: Base, c32: Figures): Figures {
  process.stderr.write('bench: re-verification at the default window...\n');
  const figures = reverificationFigures(join(ctx.dir, 'c32.db'), c32.requests);
  // one real pass with the share of the window a 5-minute schedule gives at 360 minutes
  const sinceFull = Date.now() - Date.parse(figures.fullPassStartedAt);
  const measured = ctx.runWorker({ ...base, full: false, db: join(ctx.dir, 'c32.db'), concurrency: 8, maxStalenessMs: Math.max(60_000, Math.round((sinceFull * 360) / 5)) });
  figures.measuredPass = { requests: measured.requests, reverified: measured.reverified, wallMs: measured.wallMs };
  return figures;
}

/** A bulk overwrite (500 cells, 100 renames) of one module, synced, then rolled back at concurrency 8. */
async function rollbackFigures(ctx: BenchContext, emu: EmulatorChild, base: Base): Promise<Figures> {
  const { dir, latencyMs, runWorker } = ctx;
  process.stderr.write('bench: roll back a bulk overwrite (500 cells, 100 renames)...\n');
  const db32 = new Database(join(dir, 'c32.db'), { readonly: true });
  const good = db32.prepare(`SELECT max(id) FROM snapshot_runs WHERE status = 'complete'`).pluck().get() as number;
  const victimId = db32.prepare(`SELECT id FROM modules ORDER BY name LIMIT 1 OFFSET 1`).pluck().get() as string;
  db32.close();
  const damage = await applyBulkOverwrite(emu.baseUrl, emu.apiKey, victimId, 500, 100);
  runWorker({ ...base, full: false, db: join(dir, 'c32.db'), concurrency: 8 });
  const rb = runWorker({ ...base, db: join(dir, 'c32.db'), concurrency: 8, rollback: { moduleId: victimId, toSnapshot: good } });
  const minimum = rb.planReads + rb.planWrites;
  const rbBound = (rb.rollbackRequests * latencyMs) / 8;
  return {
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
}

/** The observed dialect: incremental passes with unlogged sub-record changes, and a restore. */
export async function observedFigures(ctx: BenchContext): Promise<Figures> {
  const { dir, latencyMs, runWorker } = ctx;
  process.stderr.write('bench: observed dialect, incremental with unlogged sub-record changes...\n');
  const emu = await startEmulatorChild(['--seed', 'large', '--dialect', 'observed', '--latency-ms', String(latencyMs)]);
  try {
    const base = { baseUrl: emu.baseUrl, apiKey: emu.apiKey, full: false, db: join(dir, 'observed.db'), concurrency: 8 };
    runWorker({ ...base, full: true, concurrency: 32 });
    const plain = await applyMixedChanges(emu.baseUrl, emu.apiKey, 50, 5);
    const a = runWorker(base);
    const withSubs = await applyMixedChanges(emu.baseUrl, emu.apiKey, 50, 5, { subRecords: true });
    const b = runWorker(base);
    const idle = runWorker(base);
    const observed: Figures = {
      after50Changes: { changes: plain, requests: a.requests, ofWhichReverification: reverifyRequests(a), wallMs: a.wallMs },
      after50ChangesWithUnloggedSubRecords: { changes: withSubs, requests: b.requests, ofWhichReverification: reverifyRequests(b), wallMs: b.wallMs, note: 'one write in four is a sub-record completion or position (unlogged): its module re-lists every parent\'s sub-records' },
      nothingChanged: { requests: idle.requests, ofWhichReverification: reverifyRequests(idle) },
    };
    process.stderr.write('bench: observed dialect, restore a deleted module (columns and collections all tied at 0)...\n');
    observed.restore = restoreFigures(runWorker({ ...base, restore: true }), latencyMs);
    return observed;
  } finally {
    await emu.stop();
  }
}

/** A deleted workspace of 5 modules restored at concurrency 8. */
export async function restoreWorkspaceFigures(ctx: BenchContext): Promise<Figures> {
  const { dir, latencyMs, runWorker } = ctx;
  process.stderr.write('bench: restore a deleted workspace of 5 modules...\n');
  const emu = await startEmulatorChild(['--seed', 'large', '--modules', '5', '--latency-ms', String(latencyMs)]);
  try {
    const base = { baseUrl: emu.baseUrl, apiKey: emu.apiKey, db: join(dir, 'ws5.db'), concurrency: 8 };
    runWorker({ ...base, full: true, concurrency: 32 });
    const w = runWorker({ ...base, full: false, restoreWorkspace: true });
    const minimum = w.planReads + w.planWrites;
    const bound = (w.restoreRequests * latencyMs) / 8;
    return {
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
}

/** Peak RSS of a full pass of a seed twice as large, against the large seed's. */
export async function twiceAsLargeFigures(ctx: BenchContext, largeMb: number): Promise<Figures> {
  process.stderr.write('bench: a seed twice as large (peak RSS)...\n');
  const emu = await startEmulatorChild(['--seed', 'large', '--modules', '40', '--latency-ms', String(ctx.latencyMs)]);
  try {
    const twice = ctx.runWorker({ baseUrl: emu.baseUrl, apiKey: emu.apiKey, full: true, db: join(ctx.dir, 'twice.db'), concurrency: 32 });
    return { largeMb, twiceAsLargeMb: twice.peakRssMb, twiceWallMs: twice.wallMs };
  } finally {
    await emu.stop();
  }
}

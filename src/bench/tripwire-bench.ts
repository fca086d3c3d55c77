// The tripwire's cost per pass for the bench, now that every pass runs it: on the large seed's
// database with its history of passes (reporting.ts buildHistoryDb: a full pass, then incremental
// passes after 50 mixed writes each), the tripwire's counting and evaluation between each pair of
// consecutive complete snapshots — exactly what the step after a pass does before recording
// incidents. Also the one-off cost of migration 016's partial indexes on that database.

import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { openStore } from '../store/index.js';
import { evaluateTripwire } from '../tripwire/evaluate.js';
import { ensureHistoryDb } from './reporting.js';

export interface TripwireBenchOptions {
  historyDb: string;
  historyPasses: number;
  historyModules: number;
}

const T = { recordsPercent: 20, minRecords: 10, cellsPercent: 30, minCells: 20, amendmentsPercent: 20, minAmendments: 10 };

export async function tripwireSection(opts: TripwireBenchOptions): Promise<Record<string, unknown>> {
  const history = await ensureHistoryDb(opts.historyDb, opts.historyPasses, opts.historyModules, 'tripwire');
  process.stderr.write('bench: tripwire: counting each pass against the one before...\n');
  // a database built before migration 016 gets its indexes here, once: timed apart
  const raw = new Database(opts.historyDb, { readonly: true });
  const had016 = (raw.prepare(`SELECT count(*) FROM sqlite_master WHERE name = 'cell_versions_opened'`).pluck().get() as number) > 0;
  raw.close();
  const t0 = performance.now();
  const store = openStore(opts.historyDb);
  const openMs = performance.now() - t0;
  try {
    const ids = store.listSnapshots().filter((s) => s.status === 'complete').map((s) => s.id);
    const times: number[] = [];
    let findings = 0;
    let modulesCounted = 0;
    for (let i = 1; i < ids.length; i++) {
      const s = performance.now();
      const changes = store.changeCounts(ids[i - 1]!, ids[i]!);
      findings += evaluateTripwire(changes, T, ids[i - 1]!, ids[i]!).length;
      times.push(performance.now() - s);
      modulesCounted += changes.length;
    }
    const sorted = [...times].sort((a, b) => a - b);
    const round = (n: number): number => Math.round(n * 10) / 10;
    return {
      history,
      passes: times.length,
      records: store.db.prepare('SELECT count(*) FROM records').pluck().get(),
      perPassMs: { mean: round(times.reduce((a, b) => a + b, 0) / Math.max(1, times.length)), p95: round(sorted[Math.floor(sorted.length * 0.95)] ?? 0), max: round(sorted.at(-1) ?? 0), afterFullPass: round(times[0] ?? 0) },
      modulesCountedPerPass: round(modulesCounted / Math.max(1, times.length)),
      findings,
      ...(had016 ? {} : { migration016Ms: Math.round(openMs) }),
      note: 'changeCounts + evaluateTripwire between consecutive complete snapshots (50 mixed writes each), default thresholds',
    };
  } finally {
    store.close();
  }
}

// `BENCH_ONLY=drill`: a restore drill of the large seed in its own process — wall time and peak
// RSS — against a full export of the same database plus the restore's own work (issue #37's
// target: no more than 1.39× that, and a peak RSS ≤ 300 MB whatever the size), and at twice the
// size, to show its memory stays flat. The scratch emulator runs inside the drill's process, so
// that process's peak RSS is the drill and its scratch service together. BENCH_DRILL_DB and
// BENCH_DRILL_TWICE_DB reuse databases of an earlier run (full passes of the large seed and of
// twice it).

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runDrillInChild } from '../drill/run-child.js';
import { startEmulatorChild } from './emulator-child.js';
import { buildHistoryDb } from './reporting.js';
import { NODE_FLAGS } from '../config/heap-policy.js';

type Figures = Record<string, unknown>;

const CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url));
const ATTRIBUTION = 'Restored by wbsync — originally by {author} at {createdAt}.';

/** A full pass of the large seed (`modules` modules of 500 records) into a new database. */
async function seededDb(path: string, modules: number): Promise<void> {
  const emu = await startEmulatorChild(['--seed', 'large', '--modules', String(modules), '--latency-ms', '0']);
  try {
    await buildHistoryDb(emu.baseUrl, emu.apiKey, path, 0, () => undefined);
  } finally {
    await emu.stop();
  }
}

/** `wbsync export --out` of the latest snapshot, in its own process: the baseline's first half. */
function exportMs(db: string, dir: string): number {
  const t0 = performance.now();
  execFileSync(process.execPath, [...NODE_FLAGS, CLI, 'export', '--db', db, '--out', join(dir, `export-${Date.now()}.db`), '--log-level', 'silent'], { encoding: 'utf8', env: { ...process.env, WBSYNC_LOG_LEVEL: 'silent' } });
  return Math.round(performance.now() - t0);
}

export async function drillOnce(db: string, dir: string): Promise<Figures> {
  const exportWallMs = exportMs(db, dir);
  const out = await runDrillInChild({ db, dialect: 'observed', attribution: ATTRIBUTION, http: { concurrency: 8, timeoutMs: 30_000, retries: 5 }, tmpRoot: dir });
  if (!out.ok) throw new Error(`bench: the drill could not run: ${out.message}`);
  const r = out.report;
  const baselineMs = exportWallMs + r.phases.restoreMs;
  const sum = (k: 'compared' | 'equal' | 'differing' | 'notRestorable'): number => r.workspaces.reduce((n, w) => n + Object.values(w.entities).reduce((m, t) => m + t[k], 0), 0);
  return {
    ok: r.ok,
    entities: { compared: sum('compared'), equal: sum('equal'), differing: sum('differing'), notRestorable: sum('notRestorable') },
    requests: r.workspaces.reduce((n, w) => n + w.requests, 0),
    wallMs: out.wallMs,
    phases: r.phases,
    peakRssMb: Math.round(out.maxRssKb / 1024),
    exportWallMs,
    baselineMs,
    overBaseline: Number((out.wallMs / baselineMs).toFixed(2)),
    loadAverageAfter: Number(loadavg()[0].toFixed(1)),
  };
}

export async function drillFigures(): Promise<Figures> {
  const modules = Number(process.env.BENCH_DRILL_MODULES ?? 20);
  const dir = mkdtempSync(join(tmpdir(), 'wbsync-drill-bench-'));
  try {
    const large = process.env.BENCH_DRILL_DB ?? join(dir, 'large.db');
    if (!existsSync(large)) {
      process.stderr.write(`bench: drill: a full pass of the large seed (${modules} modules)...\n`);
      await seededDb(large, modules);
    }
    process.stderr.write('bench: drill: export, then the drill of the large seed...\n');
    const full = await drillOnce(large, dir);
    const twice = modules * 2;
    process.stderr.write(`bench: drill: the same at twice the size (${twice} modules)...\n`);
    const twiceDb = process.env.BENCH_DRILL_TWICE_DB ?? join(dir, 'twice.db');
    if (!existsSync(twiceDb)) await seededDb(twiceDb, twice);
    const doubled = await drillOnce(twiceDb, dir);
    return {
      modules,
      large: full,
      twice: { modules: twice, ...doubled },
      rssGrowthTwiceOverLarge: Number(((doubled.peakRssMb as number) / (full.peakRssMb as number)).toFixed(2)),
      // the drill's process hosts its scratch service: one peak for both
      peakRssCovers: 'the drill process and its scratch service (the bundled emulator runs inside it)',
      targetOverBaseline: 1.39,
      targetPeakRssMb: 300,
      loadAverage: loadavg().map((x) => Number(x.toFixed(1))),
      meetsTarget: (full.overBaseline as number) <= 1.39 && (full.peakRssMb as number) <= 300 && (doubled.peakRssMb as number) <= 300,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// `npm run bench` (BENCH_ONLY=ui): the web console's server time per page — on the large seed with
// 100 passes of history (the reporting section's database, BENCH_HISTORY_DB caches it) and on one
// module of 10,000 records with 100 passes, paged — target <= 200 ms each; and the daemon's pass
// time with the console being read during its passes versus left alone. The recover previews are
// also timed alone (the planning function, no HTTP) on the 10,000-record module, whole-module and
// rollback, from the oldest snapshot and from a recent one, and again once 2,000 records are
// deleted (a collection with them in it, or every fifth record). BENCH_UI_PARTS=big runs only the
// 10,000-record module (no large-seed history to build, no daemon comparison).

import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '../config/logger.js';
import { ConfigSchema } from '../config/schema.js';
import { scheduleView } from '../daemon/console-schedule.js';
import { openStore } from '../store/index.js';
import { createConsole } from '../ui/console.js';
import { previewRecover } from '../ui/recover-plan.js';
import { startConsoleServer } from '../ui/server.js';
import { ensureHistoryDb } from './reporting.js';
import { buildBigModuleDb, deleteFromBigModule } from './ui-bench-data.js';
import { measureConsoleDuringPasses } from './ui-bench-daemon.js';

const TARGET_MS = 200;
const RUNS = 7;

export interface UiBenchOptions {
  dir: string;
  /** The reporting section's history database (built here when missing). */
  historyDb: string;
  historyPasses: number;
  historyModules: number;
  /** Incremental passes per side of the daemon comparison. */
  daemonPasses: number;
  /** Between two page reads during the daemon comparison (0: back to back). */
  pagePauseMs: number;
}

type Timing = { path: string; medianMs: number; maxMs: number; bytes: number; status: number };

async function timePages(dbPath: string, paths: Record<string, string>): Promise<Record<string, Timing>> {
  const config = ConfigSchema.parse({ db: dbPath });
  const ui = createConsole({ dbPath, config, token: null, logger: createLogger({ level: 'silent' }), schedule: scheduleView(config), listenHost: '127.0.0.1' });
  const server = await startConsoleServer('127.0.0.1', 0, ui);
  const base = server.url.replace(/\/ui\/$/, '');
  const out: Record<string, Timing> = {};
  try {
    for (const [name, path] of Object.entries(paths)) {
      const times: number[] = [];
      let bytes = 0;
      let status = 0;
      for (let i = 0; i <= RUNS; i++) {
        const t0 = performance.now();
        const res = await fetch(`${base}${path}`);
        const body = await res.text();
        const ms = performance.now() - t0;
        if (i > 0) times.push(ms); // the first warms the statement cache
        bytes = body.length;
        status = res.status;
      }
      times.sort((a, b) => a - b);
      out[name] = { path, medianMs: Math.round(times[Math.floor(times.length / 2)]! * 10) / 10, maxMs: Math.round(times[times.length - 1]! * 10) / 10, bytes, status };
    }
  } finally {
    await server.close();
    ui.close();
  }
  return out;
}

/** The largest module, a record with amendments, and the snapshots to compare, from the history database. */
function pickTargets(dbPath: string): { moduleId: string; recordId: string; latest: number; oldest: number } {
  const store = openStore(dbPath, { readonly: true });
  try {
    const latest = store.latestCompleteSnapshot()!;
    const oldest = store.listSnapshots().find((s) => s.status === 'complete')!.id;
    const m = store.db.prepare(`SELECT module_id AS id, count(*) AS n FROM records GROUP BY module_id ORDER BY n DESC LIMIT 1`).get() as { id: string };
    const r = store.db.prepare(`SELECT id FROM records WHERE module_id = ? AND amendment_count > 0 LIMIT 1`).pluck().get(m.id) as string | undefined;
    const any = store.db.prepare(`SELECT id FROM records WHERE module_id = ? LIMIT 1`).pluck().get(m.id) as string;
    return { moduleId: m.id, recordId: r ?? any, latest, oldest };
  } finally {
    store.close();
  }
}

type PreviewTiming = { medianMs: number; maxMs: number; cpuMedianMs: number; writes: number; steps: number };

/** previewRecover alone (what the recover page spends its time on), RUNS times after a warm-up. */
function timePreviews(dbPath: string, moduleId: string, cases: Record<string, { snapshot: number; scope: 'module' | 'rollback' }>): Record<string, PreviewTiming> {
  const store = openStore(dbPath, { readonly: true });
  const out: Record<string, PreviewTiming> = {};
  try {
    for (const [name, c] of Object.entries(cases)) {
      const times: number[] = [];
      // the process's CPU time too: on a shared machine wall time measures the load as much
      const cpu: number[] = [];
      let last: ReturnType<typeof previewRecover> | null = null;
      for (let i = 0; i <= RUNS; i++) {
        const t0 = performance.now();
        const c0 = process.cpuUsage();
        last = previewRecover(store, { moduleId, snapshot: c.snapshot, scope: c.scope, attribution: 'Restored by wbsync — originally by {author} at {createdAt}.' });
        const used = process.cpuUsage(c0);
        if (i > 0) (times.push(performance.now() - t0), cpu.push((used.user + used.system) / 1000));
      }
      times.sort((a, b) => a - b);
      cpu.sort((a, b) => a - b);
      out[name] = {
        medianMs: Math.round(times[Math.floor(times.length / 2)]! * 10) / 10,
        maxMs: Math.round(times[times.length - 1]! * 10) / 10,
        cpuMedianMs: Math.round(cpu[Math.floor(cpu.length / 2)]! * 10) / 10,
        writes: last!.writeCount,
        steps: last!.summary?.phases.reduce((n, p) => n + p.steps, 0) ?? 0,
      };
    }
  } finally {
    store.close();
  }
  return out;
}

async function bigModuleFigures(opts: UiBenchOptions): Promise<{ build: unknown; pages: Record<string, Timing>; previews: Record<string, PreviewTiming> }> {
  process.stderr.write('bench: ui: one module of 10,000 records with 100 passes of history...\n');
  const bigDb = join(opts.dir, 'ui-big-module.db');
  const big = await buildBigModuleDb(bigDb);
  const b = encodeURIComponent(big.moduleId);
  const pages = await timePages(bigDb, {
    modulePage1: `/ui/module/${b}`,
    modulePage100: `/ui/module/${b}?page=100`,
    moduleLastPage: `/ui/module/${b}?page=200`,
    moduleOldestPage100: `/ui/module/${b}?snapshot=1&page=100`,
    moduleOneCollection: `/ui/module/${b}?collection=c00000000000000000000003&page=20`,
    record: `/ui/record/${encodeURIComponent(big.recordId)}?snapshot=50`,
    changesOnePass: `/ui/changes?from=${big.passes}&to=${big.passes + 1}`,
    search: '/ui/search?q=v77',
    recoverModule: `/ui/recover?module=${b}&snapshot=1`,
    recoverRollback: `/ui/recover?module=${b}&snapshot=1&scope=rollback`,
    recoverRollbackRecent: `/ui/recover?module=${b}&snapshot=${big.passes - 9}&scope=rollback`,
  });
  process.stderr.write('bench: ui: the recover previews alone...\n');
  const previews = timePreviews(bigDb, big.moduleId, {
    restoreFromOldest: { snapshot: 1, scope: 'module' },
    rollbackToOldest: { snapshot: 1, scope: 'rollback' },
    rollbackTenPassesBack: { snapshot: big.passes - 9, scope: 'rollback' },
  });
  // then 2,000 records deleted: a collection with them in it (what the backup last held of each is
  // what the preview stands in for them: ui/recover-stranded.ts), or every fifth record
  for (const what of ['collection', 'records'] as const) {
    const copyDb = join(opts.dir, `ui-big-module-deleted-${what}.db`);
    copyFileSync(bigDb, copyDb);
    await deleteFromBigModule(copyDb, what);
    const name = what === 'collection' ? 'CollectionDeleted' : 'RecordsDeleted';
    Object.assign(previews, timePreviews(copyDb, big.moduleId, {
      [`rollbackToOldest${name}`]: { snapshot: 1, scope: 'rollback' },
      [`rollbackTenPassesBack${name}`]: { snapshot: big.passes - 9, scope: 'rollback' },
    }));
  }
  return { build: big, pages, previews };
}

export async function uiFigures(opts: UiBenchOptions): Promise<Record<string, unknown>> {
  if (process.env.BENCH_UI_PARTS === 'big') {
    const big = await bigModuleFigures(opts);
    const all = [...Object.values(big.pages), ...Object.values(big.previews).map((x, i) => ({ ...x, path: `preview ${Object.keys(big.previews)[i]}` }))];
    return { targetMs: TARGET_MS, runsPerPage: RUNS, tenThousandRecordModule: big, overTarget: all.filter((x) => x.medianMs > TARGET_MS).map((x) => `${x.path}: ${x.medianMs} ms`) };
  }
  const history = await ensureHistoryDb(opts.historyDb, opts.historyPasses, opts.historyModules, 'ui');
  process.stderr.write('bench: ui: pages on the large seed with history...\n');
  const t = pickTargets(opts.historyDb);
  const m = encodeURIComponent(t.moduleId);
  const large = await timePages(opts.historyDb, {
    overview: '/ui/',
    snapshots: '/ui/snapshots',
    changesOnePass: `/ui/changes?from=${t.latest - 1}&to=${t.latest}`,
    changesTenPasses: `/ui/changes?from=${t.latest - 10}&to=${t.latest}`,
    changesWholeHistory: `/ui/changes?from=${t.oldest}&to=${t.latest}`,
    browse: '/ui/browse',
    browseOldest: `/ui/browse?snapshot=${t.oldest}`,
    module: `/ui/module/${m}`,
    moduleOldest: `/ui/module/${m}?snapshot=${t.oldest}`,
    record: `/ui/record/${encodeURIComponent(t.recordId)}`,
    search: '/ui/search?q=record',
    recoverPicker: '/ui/recover',
    recoverModule: `/ui/recover?module=${m}&snapshot=${t.oldest}`,
    recoverRollback: `/ui/recover?module=${m}&snapshot=${t.oldest}&scope=rollback`,
  });

  const big = await bigModuleFigures(opts);
  process.stderr.write('bench: ui: daemon pass time with the console read during passes, and without...\n');
  const daemon = await measureConsoleDuringPasses({ dir: opts.dir, passes: opts.daemonPasses, pauseMs: opts.pagePauseMs });
  const all = [...Object.values(large), ...Object.values(big.pages), ...Object.entries(big.previews).map(([k, x]) => ({ ...x, path: `preview ${k}` }))];
  return {
    targetMs: TARGET_MS,
    runsPerPage: RUNS,
    history,
    largeSeedWithHistory: large,
    tenThousandRecordModule: big,
    overTarget: all.filter((x) => x.medianMs > TARGET_MS).map((x) => `${x.path}: ${x.medianMs} ms`),
    daemon,
    note: 'medians of client-side wall time over loopback (server time plus a few tenths of a ms); the first request of each page is a warm-up',
  };
}

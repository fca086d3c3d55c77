// Erasure figures for the bench: on a copy of the large seed's database with its history of passes
// (reporting.ts buildHistoryDb), one person is erased — the member with the most amendments who does
// not own the workspace. Total time, the row rewrite against the file rewrite (VACUUM + WAL
// checkpoint), the longest single transaction of the rewrite (what a running daemon's pass may wait
// for), version rows touched, sizes, and verify afterwards.

import { copyFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { erase } from '../store/erasure/index.js';
import { openStore } from '../store/index.js';
import { ensureHistoryDb } from './reporting.js';

export interface EraseBenchOptions {
  /** Scratch folder of the run (the copy erased is made and removed there). */
  dir: string;
  /** The reporting section's history database (built here first if it does not exist). */
  historyDb: string;
  historyPasses: number;
  historyModules: number;
}

/** The bench section: the history database (reused, or built), then the erasure on a copy. */
export async function eraseSection(opts: EraseBenchOptions): Promise<Record<string, unknown>> {
  const history = await ensureHistoryDb(opts.historyDb, opts.historyPasses, opts.historyModules, 'erase');
  process.stderr.write('bench: erase: one person from every version...\n');
  return { history, ...(await eraseFigures(opts.historyDb, join(opts.dir, 'erase.db'))) };
}

export interface EraseFigures {
  snapshots: number;
  sizeMb: number;
  user: { id: string; amendments: number; activityRows: number };
  dryRunMs: number;
  totalMs: number;
  rowRewriteMs: number;
  fileRewriteMs: number;
  fileRewriteShare: number;
  longestTransactionMs: number;
  rows: { deleted: number; rewritten: number; perTable: Record<string, { deleted: number; rewritten: number }> };
  snapshotsTouched: number;
  sizeAfterMb: number;
  verifyOk: boolean;
}

const mb = (n: number): number => Math.round((n / 1_048_576) * 10) / 10;
const fileSize = (p: string): number => statSync(p).size + (() => { try { return statSync(`${p}-wal`).size; } catch { return 0; } })();

export async function eraseFigures(historyDb: string, workDb: string): Promise<EraseFigures> {
  copyFileSync(historyDb, workDb);
  rmSync(`${workDb}-wal`, { force: true });
  const store = openStore(workDb);
  try {
    const db = store.db;
    db.pragma('wal_checkpoint(TRUNCATE)');
    const size = fileSize(workDb);
    const user = db.prepare(`SELECT m.user_id AS id, (SELECT count(*) FROM amendment_versions a WHERE a.user_id = m.user_id) AS amendments,
        (SELECT count(*) FROM activity_versions v WHERE v.user_id = m.user_id) AS activityRows
      FROM members m WHERE m.role <> 'owner' ORDER BY amendments DESC, m.user_id LIMIT 1`).get() as EraseFigures['user'] | undefined;
    if (!user) throw new Error('erase bench: the database holds no member but the owner');
    const snapshots = db.prepare('SELECT count(*) FROM snapshot_runs').pluck().get() as number;
    const targets = [{ kind: 'user' as const, id: user.id }];
    let t0 = performance.now();
    erase(db, { targets, dryRun: true, reason: null, now: () => new Date() });
    const dryRunMs = performance.now() - t0;
    t0 = performance.now();
    const r = erase(db, { targets, dryRun: false, reason: 'bench', now: () => new Date() });
    const totalMs = performance.now() - t0;
    const tables = Object.values(r.tables);
    return {
      snapshots,
      sizeMb: mb(size),
      user,
      dryRunMs: Math.round(dryRunMs),
      totalMs: Math.round(totalMs),
      rowRewriteMs: Math.round(r.timings.rewriteMs),
      fileRewriteMs: Math.round(r.timings.compactMs),
      fileRewriteShare: Math.round((r.timings.compactMs / totalMs) * 100) / 100,
      longestTransactionMs: Math.round(r.timings.longestTransactionMs),
      rows: { deleted: tables.reduce((n, c) => n + c.deleted, 0), rewritten: tables.reduce((n, c) => n + c.rewritten, 0), perTable: r.tables },
      snapshotsTouched: Object.keys(r.snapshots).length,
      sizeAfterMb: mb(fileSize(workDb)),
      verifyOk: store.verify().ok && r.complete === true,
    };
  } finally {
    store.close();
    rmSync(workDb, { force: true });
    rmSync(`${workDb}-wal`, { force: true });
    rmSync(`${workDb}-shm`, { force: true });
  }
}

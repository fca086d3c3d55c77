// Retention figures for the bench: a copy of the large seed's database grows 1,000 snapshots of
// cell changes written through the store (as passes would, one an hour; 2,000 cells changed ten
// times each), then a restic-style
// policy prunes it: time, snapshots and version rows forgotten, bytes freed, and the database's
// size per stored change before and after.

import { copyFileSync, statSync } from 'node:fs';
import type { Cell } from '../domain/entities.js';
import { prune } from '../store/retention/index.js';
import { openStore } from '../store/index.js';

export interface PruneFigures {
  snapshots: number;
  changesStored: number;
  sizeBeforeMb: number;
  bytesPerChangeBefore: number;
  prune: { policy: string; wallMs: number; forgotten: number; kept: number; rowsDeleted: number; bytesFreedMb: number };
  sizeAfterMb: number;
  bytesPerChangeAfter: number;
  verifyOk: boolean;
}

const mb = (n: number): number => Math.round((n / 1_048_576) * 10) / 10;
const fileSize = (p: string): number => statSync(p).size + (() => { try { return statSync(`${p}-wal`).size; } catch { return 0; } })();

export async function pruneFigures(sourceDb: string, workDb: string, snapshots = 1000, changesPerSnapshot = 20): Promise<PruneFigures> {
  copyFileSync(sourceDb, workDb);
  const store = openStore(workDb);
  try {
    const state = store.stateAt()!;
    const ws = state.workspaces()[0]!;
    const cells: Cell[] = state.modules(ws.id).flatMap((m) => state.cells(m.id)).filter((c) => c.columnId !== null && c.value !== null).slice(0, 2_000);
    if (cells.length === 0) throw new Error('prune bench: the database holds no cells');
    // what the copy holds was taken before the history below (one pass an hour from t0 on)
    const t0 = Date.parse('2026-06-01T00:00:00.000Z');
    store.db.prepare('UPDATE snapshot_runs SET started_at = ?, finished_at = ?').run(new Date(t0 - 3_600_000).toISOString(), new Date(t0 - 3_600_000).toISOString());
    store.db.pragma('wal_checkpoint(TRUNCATE)');
    const base = fileSize(workDb);
    let seq = 0;
    for (let s = 0; s < snapshots; s++) {
      const id = store.beginSnapshot('incremental');
      const changed: Cell[] = [];
      for (let i = 0; i < changesPerSnapshot; i++) {
        const c = cells[(s * changesPerSnapshot + i) % cells.length]!;
        seq++;
        changed.push({ ...c, value: `${c.value?.slice(0, 40)} #${seq}`, updatedAt: new Date(t0 + seq).toISOString(), raw: { ...c.raw, value: `${c.value?.slice(0, 40)} #${seq}` } });
      }
      await store.apply(id, { upserts: { cells: changed } });
      store.finishSnapshot(id, 'complete', {});
      const at = new Date(t0 + s * 3_600_000).toISOString();
      store.db.prepare('UPDATE snapshot_runs SET started_at = ?, finished_at = ? WHERE id = ?').run(at, at, id);
    }
    store.db.pragma('wal_checkpoint(TRUNCATE)');
    const changesStored = snapshots * changesPerSnapshot;
    const before = fileSize(workDb);
    const policy = { keepDaily: 7, keepWeekly: 4, keepMonthly: 12 };
    const started = Date.now();
    const r = prune(store.db, { policy, now: new Date(t0 + snapshots * 3_600_000) });
    const wallMs = Date.now() - started;
    const after = fileSize(workDb);
    return {
      snapshots,
      changesStored,
      sizeBeforeMb: mb(before),
      bytesPerChangeBefore: Math.round((before - base) / changesStored),
      prune: { policy: '--keep-daily 7 --keep-weekly 4 --keep-monthly 12', wallMs, forgotten: r.forget.length, kept: r.keep.length, rowsDeleted: Object.values(r.rows).reduce((a, b) => a + b, 0), bytesFreedMb: mb(r.bytesFreed) },
      sizeAfterMb: mb(after),
      bytesPerChangeAfter: Math.round(Math.max(0, after - base) / changesStored),
      verifyOk: store.verify().ok,
    };
  } finally {
    store.close();
  }
}

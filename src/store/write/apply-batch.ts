// apply(): one batch in ONE transaction (BEGIN IMMEDIATE ... COMMIT by hand). On the main thread
// (the inline writer) it is written in slices of at most ~SLICE_MS with the event loop yielded
// between slices, so a 50k-cell batch does not starve HTTP requests in flight; the writer thread
// (writer-thread.ts) has no requests to starve and writes straight through. Callers serialise.
import { performance } from 'node:perf_hooks';
import type Database from 'better-sqlite3';
import { WbsyncError } from '../../domain/errors.js';
import type { Cursors } from './cursors.js';
import { UPSERT_ORDER } from '../tables/entity-specs.js';
import { erasureGate, type GateSession } from '../erasure/erasure-gate.js';
import { GoneMarker } from './gone-marks.js';
import { buildDeferredIndexes, fillTables } from './bulk-fill.js';
import type { ApplyResult, WriteBatch } from '../port.js';
import type { Snapshots } from './snapshots.js';
import { toStorageError } from '../storage-error.js';
import { emptyTally, type VersionedWriter } from './versioned-writer.js';

/** Budget of one synchronous slice; checked after every step, so slices end a little past it. */
export const SLICE_MS = 20;

export const yieldEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export interface ApplyContext {
  db: Database.Database;
  writer: VersionedWriter;
  snapshots: Snapshots;
  cursors: Cursors;
}

export async function applyBatch(ctx: ApplyContext, snapshotId: number, batch: WriteBatch, sliceMs = SLICE_MS): Promise<ApplyResult> {
  const { db, writer, snapshots, cursors } = ctx;
  const status = snapshots.status(snapshotId);
  if (status !== 'running') {
    throw new WbsyncError('internal', `cannot write into snapshot ${snapshotId}: ${status ?? 'no such snapshot'}`, {
      hint: 'batches go into the running snapshot returned by beginSnapshot()',
    });
  }
  const tally = emptyTally();
  // What `wbsync erase` removed is not stored again: each upsert passes the erasure ledger's gate,
  // opened as the transaction's first step (the ledger read under the write lock).
  let gate: GateSession | null = null;
  const steps: Array<() => void> = [() => void (gate = erasureGate(db).begin(batch))];
  for (const [key, kind] of UPSERT_ORDER) {
    for (const entity of batch.upserts?.[key] ?? []) {
      steps.push(() => {
        const kept = gate ? gate.pass(kind, entity) : entity;
        if (kept) writer.upsert(snapshotId, kind, kept, tally);
      });
    }
  }
  const marker = new GoneMarker(writer, snapshotId, tally);
  for (const l of batch.listings ?? []) steps.push(() => marker.listing(l));
  for (const g of batch.gone ?? []) steps.push(() => marker.gone(g));
  const cursor = batch.cursor;
  if (cursor) steps.push(() => cursors.set(cursor.workspaceId, cursor.cursor, snapshotId));
  const verified = batch.verified;
  if (verified?.length) steps.push(() => cursors.markVerified(verified, snapshotId));
  const back = batch.indexesBack;
  if (back) {
    const tables = fillTables(back);
    steps.push(() => void buildDeferredIndexes(db, (d) => d.snapshot_id === snapshotId && tables.has(d.tbl_name)));
  }
  steps.push(() => snapshots.addCounts(snapshotId, tally.written, tally.gone));

  try {
    db.exec('BEGIN IMMEDIATE');
  } catch (e) {
    throw toStorageError(e, `starting batch of snapshot ${snapshotId}`);
  }
  try {
    let sliceStart = performance.now();
    for (const step of steps) {
      step();
      if (performance.now() - sliceStart >= sliceMs) {
        await yieldEventLoop();
        if (!db.open || !db.inTransaction) throw new WbsyncError('storage', 'the batch transaction ended while yielding (store closed?)');
        sliceStart = performance.now();
      }
    }
    db.exec('COMMIT');
  } catch (e) {
    // SQLite may already have rolled back by itself (e.g. on SQLITE_FULL); only undo what is open.
    if (db.open && db.inTransaction) {
      try {
        db.exec('ROLLBACK');
      } catch {
        // the original failure is the one worth reporting
      }
    }
    throw toStorageError(e, `writing batch of snapshot ${snapshotId} (rolled back)`);
  }
  const refused = (gate as GateSession | null)?.refused() ?? [];
  return { written: tally.written, gone: tally.gone, unchanged: tally.unchanged, ...(refused.length ? { erased: refused } : {}) };
}

// Who runs apply()'s transactions. A file database gets a writer thread (writer-thread.ts): hashing
// and SQLite's work for a 200k-row pass run beside the event loop instead of on it. An in-memory
// database cannot be shared with a second connection, so it is written inline, in slices.
import type Database from 'better-sqlite3';
import { applyBatch } from './apply-batch.js';
import type { Cursors } from './cursors.js';
import type { ApplyResult, WriteBatch } from '../port.js';
import type { Snapshots } from './snapshots.js';
import { withStorageErrors } from '../storage-error.js';
import { VersionedWriter } from './versioned-writer.js';

export interface BatchWriter {
  /** One batch in one transaction; calls are already serialised by the store. */
  apply(snapshotId: number, batch: WriteBatch): Promise<ApplyResult>;
  /** Waits for the batch in progress, if any, and releases the writer's resources. */
  close(): void;
}

export class InlineBatchWriter implements BatchWriter {
  private writer: VersionedWriter | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly snapshots: Snapshots,
    private readonly cursors: Cursors,
  ) {}

  apply(snapshotId: number, batch: WriteBatch): Promise<ApplyResult> {
    this.writer ??= withStorageErrors('preparing writes', () => new VersionedWriter(this.db));
    return applyBatch({ db: this.db, writer: this.writer, snapshots: this.snapshots, cursors: this.cursors }, snapshotId, batch);
  }

  close(): void {
    // the store closes the connection
  }
}

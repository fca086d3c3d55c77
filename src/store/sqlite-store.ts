// The Store port over one better-sqlite3 connection. Writes outside apply() are small and
// synchronous; apply() is serialised and handed to a batch writer (see batch-writer.ts).
import type Database from 'better-sqlite3';
import type { Clock } from '../domain/clock.js';
import type { BoardRecord } from '../domain/entities.js';
import { WbsyncError } from '../domain/errors.js';
import { InlineBatchWriter, type BatchWriter } from './write/batch-writer.js';
import { changeCounts, type ModuleChanges } from './read/change-counts.js';
import { Cursors } from './write/cursors.js';
import { SPECS, colList, fromRow } from './tables/entity-specs.js';
import { exportCopy } from './export/export.js';
import { exportFiles, type ExportedFile, type FileFormat } from './export/export-files.js';
import { Mutex } from './mutex.js';
import type {
  ApplyResult, Cursor, SnapshotInfo, SnapshotKind, SnapshotStatus, StateReader, Store, VerifiedPart, VerifyReport, WriteBatch,
} from './port.js';
import { Snapshots } from './write/snapshots.js';
import { SqliteStateReader } from './read/state-reader.js';
import { withStorageErrors } from './storage-error.js';
import { verifyDatabase } from './read/verify.js';
import { ThreadBatchWriter } from './write/writer-thread.js';
import { buildAbandonedIndexes, buildDeferredIndexes, deferIndexesForFill } from './write/bulk-fill.js';

export class SqliteStore implements Store {
  private readonly mutex = new Mutex();
  /** Snapshots begun by this store and not finished: never "interrupted" while we hold them. */
  private readonly held = new Set<number>();
  private readonly snapshots: Snapshots;
  private readonly cursors: Cursors;
  private readonly batches: BatchWriter;

  constructor(
    readonly db: Database.Database,
    readonly path: string,
    clock: Clock,
  ) {
    const now = (): string => clock.now().toISOString();
    this.snapshots = new Snapshots(db, now);
    this.cursors = new Cursors(db, now);
    this.batches =
      path === ':memory:' || db.readonly
        ? new InlineBatchWriter(db, this.snapshots, this.cursors)
        : new ThreadBatchWriter(path, now, () => db.pragma('max_page_count', { simple: true }) as number);
  }

  close(): void {
    this.batches.close();
    if (this.db.open) this.db.close();
  }

  /**
   * While a batch transaction is open (apply() yields between slices), any other write on this
   * connection would silently join it and vanish with a rollback: refuse instead.
   */
  private assertNoBatchOpen(what: string): void {
    if (this.mutex.locked) {
      throw new WbsyncError('internal', `${what} while a batch is being applied`, { hint: 'await apply() before other writes' });
    }
  }

  beginSnapshot(kind: SnapshotKind): number {
    this.assertNoBatchOpen('beginSnapshot');
    const id = withStorageErrors('starting a snapshot', () => this.snapshots.begin(kind));
    this.held.add(id);
    // a full pass into an empty version table builds that table's indexes once at its end (bulk-fill.ts)
    if (kind === 'full') withStorageErrors('starting a snapshot', () => deferIndexesForFill(this.db, id));
    return id;
  }

  finishSnapshot(id: number, status: Exclude<SnapshotStatus, 'running'>, summary: Record<string, unknown>): void {
    this.assertNoBatchOpen('finishSnapshot');
    // the indexes this pass left out are built back in the transaction that ends it: a complete
    // snapshot never lacks one
    withStorageErrors(`finishing snapshot ${id}`, () =>
      this.db.transaction(() => {
        buildDeferredIndexes(this.db, (d) => d.snapshot_id === id);
        this.snapshots.finish(id, status, summary);
      }).immediate(),
    );
    this.held.delete(id);
  }

  failInterruptedSnapshots(): number[] {
    this.assertNoBatchOpen('failInterruptedSnapshots');
    return withStorageErrors('marking interrupted snapshots', () => {
      const ids = this.snapshots.failInterrupted(this.held);
      if (!this.db.readonly) buildAbandonedIndexes(this.db);
      return ids;
    });
  }

  listSnapshots(): SnapshotInfo[] {
    return withStorageErrors('listing snapshots', () => this.snapshots.list());
  }

  getSnapshot(id: number): SnapshotInfo | null {
    return withStorageErrors('reading a snapshot', () => this.snapshots.get(id));
  }

  latestCompleteSnapshot(): number | null {
    return withStorageErrors('reading snapshots', () => this.snapshots.latestComplete());
  }

  apply(snapshotId: number, batch: WriteBatch): Promise<ApplyResult> {
    return this.mutex.run(() => this.batches.apply(snapshotId, batch));
  }

  getCursor(workspaceId: string): Cursor | null {
    return withStorageErrors('reading a cursor', () => this.cursors.get(workspaceId));
  }

  clearCursor(workspaceId: string): void {
    this.assertNoBatchOpen('clearCursor');
    withStorageErrors('clearing a cursor', () => this.cursors.clear(workspaceId));
  }

  knownActivityIds(ids: string[]): Set<string> {
    return withStorageErrors('reading activity ids', () => this.cursors.knownActivityIds(ids));
  }

  loggedModuleDeletions(workspaceId: string, modules: ReadonlyArray<{ id: string; name: string }>): Set<string> {
    return withStorageErrors('reading module deletions', () => this.cursors.loggedModuleDeletions(workspaceId, modules));
  }

  verifiedParts(workspaceId: string): VerifiedPart[] {
    return withStorageErrors('reading verification times', () => this.cursors.verifiedParts(workspaceId));
  }

  formerRecords(ids: string[], revivedBy: ReadonlySet<string> = new Set()): Map<string, BoardRecord | null> {
    if (ids.length === 0) return new Map();
    return withStorageErrors('reading record history', () => {
      const spec = SPECS.record;
      // per id: its last version (closed: no open one), and whether a record row of the feed first
      // seen after that close says it was moved or changed since — evidence that it lives again
      const rows = this.db
        .prepare(
          `SELECT ${colList(spec)}, EXISTS (
               SELECT 1 FROM activity_versions a
                WHERE a.record_id = v.id AND a.valid_from > v.valid_to AND a.action LIKE 'record_%'
                  AND a.action <> 'record_deleted' AND a.collection_id IS NOT NULL) AS revived
             FROM record_versions v
            WHERE v.id IN (SELECT value FROM json_each(?))
              AND NOT EXISTS (SELECT 1 FROM record_versions c WHERE c.id = v.id AND c.valid_to IS NULL)
              AND v.valid_from = (SELECT max(valid_from) FROM record_versions l WHERE l.id = v.id)`,
        )
        .raw(true)
        .all(JSON.stringify(ids)) as unknown[][];
      const out = new Map<string, BoardRecord | null>();
      for (const row of rows) {
        const record = fromRow<BoardRecord>(spec, row.slice(0, -1));
        out.set(record.id, row[row.length - 1] === 1 || revivedBy.has(record.id) ? record : null);
      }
      return out;
    });
  }

  changeCounts(from: number, to: number): ModuleChanges[] {
    return withStorageErrors('counting changes', () => changeCounts(this.db, from, to));
  }

  stateAt(snapshotId?: number): StateReader | null {
    const id = snapshotId ?? this.latestCompleteSnapshot();
    if (id === null) return null;
    if (snapshotId !== undefined && this.getSnapshot(snapshotId) === null) return null;
    return new SqliteStateReader(this.db, id);
  }

  snapshotsHolding(kind: 'workspace' | 'module' | 'record', id: string): number[] {
    const table = SPECS[kind].table;
    return withStorageErrors('reading history', () =>
      this.db
        .prepare(
          `SELECT DISTINCT s.id FROM snapshot_runs s JOIN ${table} v
             ON v.id = ? AND v.valid_from <= s.id AND (v.valid_to IS NULL OR v.valid_to > s.id)
           WHERE s.status = 'complete' AND s.id NOT IN (SELECT snapshot_id FROM snapshot_forgets) ORDER BY s.id`,
        )
        .pluck()
        .all(id) as number[],
    );
  }

  /** The snapshot an export shows: N, or the latest complete one; refused unless complete. */
  private exportable(snapshotId: number | undefined): number {
    const n = snapshotId ?? this.latestCompleteSnapshot();
    if (n === null) {
      throw new WbsyncError('usage', 'nothing to export: no complete snapshot yet', { hint: 'run `wbsync sync` first' });
    }
    const status = this.snapshots.status(n);
    if (status !== 'complete') {
      throw new WbsyncError('usage', `snapshot ${n} ${status ? `is ${status}` : 'does not exist'}; only complete snapshots can be exported`, {
        hint: 'pick one from `wbsync snapshots` with status complete',
      });
    }
    return n;
  }

  exportTo(outPath: string, snapshotId?: number, opts: { overwrite?: boolean } = {}): Promise<void> {
    // under the mutex: VACUUM INTO cannot run inside an open batch transaction
    return this.mutex.run(async () => exportCopy(this.db, outPath, this.exportable(snapshotId), opts));
  }

  async exportFiles(outDir: string, format: FileFormat, snapshotId?: number): Promise<ExportedFile[]> {
    const n = this.exportable(snapshotId);
    if (this.path === ':memory:') throw new WbsyncError('usage', 'an in-memory database cannot be exported to files');
    // its own read-only connection: a long export holds no lock this store's writer needs
    return exportFiles(this.path, outDir, n, format);
  }

  verify(): VerifyReport {
    return verifyDatabase(this.db);
  }
}

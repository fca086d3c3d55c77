// The snapshot store's surface: snapshots, versioned writes in one transaction per batch,
// per-workspace activity cursors, and reads of the state as of any snapshot.
// All SQL lives behind this interface (src/store/*).

import type { ExportedFile, FileFormat } from './export/export-files.js';
import type {
  Activity,
  Amendment,
  Automation,
  BoardRecord,
  Cell,
  Collection,
  Column,
  ColumnScope,
  Member,
  Module,
  ModuleAccess,
  ResolvedReference,
  Workspace,
} from '../domain/entities.js';

export type SnapshotKind = 'full' | 'incremental';
export type SnapshotStatus = 'running' | 'complete' | 'failed';

export interface SnapshotInfo {
  id: number;
  kind: SnapshotKind;
  status: SnapshotStatus;
  startedAt: string;
  finishedAt: string | null;
  /** Versions written by this snapshot per entity kind (new or changed; key = EntityKind, e.g.
   * `record`), and gone marks (key `<kind>.gone`, e.g. `record.gone`). */
  counts: Record<string, number>;
  /** Free-form pass summary (requests, duration, failures...). */
  summary: Record<string, unknown>;
}

export interface Upserts {
  workspaces?: Workspace[];
  members?: Member[];
  modules?: Module[];
  collections?: Collection[];
  columns?: Column[];
  /** Records and sub-records. */
  records?: BoardRecord[];
  cells?: Cell[];
  amendments?: Amendment[];
  automations?: Automation[];
  /** Activity rows are stored once each by id and never marked gone (retention must not erase history). */
  activity?: Activity[];
  moduleAccess?: ModuleAccess[];
  /** Resolved relation/reference cells of a module (GET /record-values/references/{module}). */
  references?: ResolvedReference[];
}

/**
 * A listing that succeeded: every entity current in the scope and absent from `ids` is marked gone
 * by this snapshot, with everything beneath it (as a cascading GoneMark would). Applied after the
 * batch's upserts, so a child upserted into another parent has already left the scope.
 */
export type Listing =
  | { kind: 'workspace'; ids: string[]; /** when set, only these workspaces are in scope */ scopeIds?: string[] }
  | { kind: 'member'; workspaceId: string; ids: string[] /* user ids */ }
  | { kind: 'module'; workspaceId: string; ids: string[] }
  | { kind: 'collection'; moduleId: string; ids: string[] }
  | { kind: 'column'; moduleId: string; scope: ColumnScope; ids: string[] }
  /** Top-level, non-archived records whose collection is collectionId. */
  | { kind: 'record'; collectionId: string; ids: string[] }
  /** Non-archived sub-records of parentRecordId. */
  | { kind: 'subrecord'; parentRecordId: string; ids: string[] }
  | { kind: 'cell'; recordId: string; ids: string[] }
  | { kind: 'amendment'; recordId: string; ids: string[] }
  | { kind: 'moduleAutomation'; moduleId: string; ids: string[] }
  | { kind: 'workspaceAutomation'; workspaceId: string; ids: string[] }
  | { kind: 'moduleAccess'; workspaceId: string; userId: string; ids: string[] /* module ids */ }
  /** Resolved references of a module; ids are `recordId/columnId`. */
  | { kind: 'reference'; moduleId: string; ids: string[] };

/** An explicit removal; `cascade` also marks gone everything beneath (module → collections,
 * columns, records, cells, amendments, module automations, access rows; record → sub-records,
 * cells, amendments; collection → its top-level records and theirs; column → itself only: its cells go by their
 * records' cell listings, as the service keeps or drops them). */
export interface GoneMark {
  kind: 'workspace' | 'module' | 'collection' | 'column' | 'record' | 'cell' | 'amendment' | 'automation';
  id: string;
  cascade?: boolean;
}

export interface Cursor {
  workspaceId: string;
  /** createdAt of the newest activity row covered (ISO). */
  cursor: string;
  /** snapshot that stored it */
  snapshotId: number;
  updatedAt: string;
}

/** A part of a workspace that is read in full at once: its own lists (members, workspace
 * automations, grants) or one module with everything in it. */
export interface PartRef {
  workspaceId: string;
  kind: 'workspace' | 'module';
  id: string;
}

export interface VerifiedPart extends PartRef {
  /** Start of the snapshot that last read it in full (ISO). */
  verifiedAt: string;
}

export interface WriteBatch {
  upserts?: Upserts;
  listings?: Listing[];
  gone?: GoneMark[];
  /** Stored in the same transaction as the data it covers. */
  cursor?: { workspaceId: string; cursor: string };
  /** Parts this batch's data read in full, as of the snapshot's start (same transaction). */
  verified?: PartRef[];
  /** Build the indexes this snapshot's first fill left out (store/write/bulk-fill.ts) in this
   * batch's transaction: sent by a pass after its last batch, so the build runs where the batches
   * are written (the writer thread), not on the event loop; finishSnapshot builds whatever is left.
   * A list builds only the tables of those kinds: a full pass's feed sends ['activity', 'cell'] with
   * its last batch, so those indexes are built while the module crawl still runs, not on the pass's
   * tail (the cells written after it pay their indexes as they are inserted). */
  indexesBack?: true | ReadonlyArray<'activity' | 'cell'>;
}

export interface ApplyResult {
  /** new or changed versions written, per entity kind */
  written: Record<string, number>;
  /** entities marked gone, per entity kind */
  gone: Record<string, number>;
  unchanged: number;
  /** Erased entities (the erasure ledger) the batch brought, still live on the service: not stored. */
  erased?: string[];
  /** CPU time the writer thread spent since its previous answer: receiving and writing this batch
   * (ms; Linux only). The bench reports it per 1,000 entities beside the syncer's own. */
  writerCpuMs?: number;
}

/** The state as of one snapshot (versions with valid_from <= N < valid_to). */
export interface StateReader {
  readonly snapshotId: number;
  workspaces(): Workspace[];
  members(workspaceId: string): Member[];
  modules(workspaceId?: string): Module[];
  module(moduleId: string): Module | null;
  collections(moduleId: string): Collection[];
  columns(moduleId: string, scope?: ColumnScope): Column[];
  /** Records and sub-records of the module, archived ones included. */
  records(moduleId: string): BoardRecord[];
  record(recordId: string): BoardRecord | null;
  cells(moduleId: string): Cell[];
  cellsOfRecord(recordId: string): Cell[];
  amendments(moduleId: string): Amendment[];
  amendmentsOfRecord(recordId: string): Amendment[];
  /** cellsOfRecord and amendmentsOfRecord of each of `recordIds` at once (two statements); a record
   * with neither is left out. */
  contentOfRecords(recordIds: readonly string[]): Map<string, { cells: Cell[]; amendments: Amendment[] }>;
  moduleAutomations(moduleId: string): Automation[];
  workspaceAutomations(workspaceId: string): Automation[];
  moduleAccess(workspaceId: string): ModuleAccess[];
  activity(workspaceId: string): Activity[];
  /** The rows of one module's feed (created at or after `since`, an ISO time compared as text, when
   * given), oldest first: `activity(workspaceId)` filtered so, without decoding the other rows. */
  moduleActivity(workspaceId: string, moduleId: string, since?: string): Activity[];
  /** When the activity feed saw each collection and column of a module created (the published
   * interface gives neither a createdAt; restore needs it to order siblings tied in position). */
  creationTimes(workspaceId: string, moduleId: string): Map<string, string>;
  /** Sub-records the feed says were created in `moduleId` that the store holds no version of, with the collection their creation row names. */
  unplacedSubRecords(moduleId: string): Array<{ id: string; collectionId: string | null }>;
  /** The module's records any version of which, up to this snapshot, was in one of `collectionIds`
   * (a parent archived since may have moved away from the collection a creation row names). */
  recordsEverIn(moduleId: string, collectionIds: readonly string[]): Set<string>;
  /** The stored `record_created` rows of these records of `moduleId`: what an earlier pass read of their creation. */
  recordCreations(moduleId: string, recordIds: readonly string[]): Activity[];
  /** Whether any activity row is stored by this snapshot. */
  anyActivity(): boolean;
  /** Among `ids`, the activity rows stored by this snapshot, each with the snapshot that first stored it. */
  activityStoredAt(ids: readonly string[]): Map<string, number>;
  /** The module's records (current versions) with the snapshot that stored each version. */
  recordsStoredAt(moduleId: string): Map<string, number>;
  /** Per module of the workspace: current records (sub-records included) and how many of them
   * have sub-records or amendments — what reading the module in full costs. */
  moduleSizes(workspaceId: string): Map<string, { records: number; withSubRecords: number; withAmendments: number; collections: number }>;
}

export interface VerifyProblem {
  check: string;
  message: string;
}

export interface VerifyReport {
  ok: boolean;
  problems: VerifyProblem[];
  /** Worth showing, not failures (e.g. a snapshot still running in a live process). */
  warnings?: VerifyProblem[];
  checks: string[];
}

// What changed in one module between two snapshots (changeCounts; the tripwire's input; counted
// in read/change-counts.ts).
export interface Actor {
  /** A user id, or `automation:<id>`. */
  id: string;
  name: string;
  rows: number;
}

/** An actor's feed rows on one column's cells: how many, first and last. */
export interface Writer extends Actor {
  from: string;
  to: string;
}

export interface ColumnChange {
  columnId: string;
  name: string;
  /** Cells of the column at the earlier snapshot. */
  before: number;
  added: number;
  changed: number;
  removed: number;
  deleted: boolean;
  /** Who wrote the column's cells in between, per the feed, most rows first. */
  writers: Writer[];
}

export interface ModuleChanges {
  workspaceId: string;
  moduleId: string;
  moduleName: string;
  moduleGone: boolean;
  records: { before: number; removed: number };
  amendments: { before: number; deleted: number };
  columns: ColumnChange[];
  collectionsDeleted: { id: string; name: string }[];
  /** Who wrote to the module in between, per the activity feed, most rows first (for a deleted
   * module: who deleted it). */
  actors: Writer[];
  /** Changes left out because wbsync made them (a restore or rollback in between). */
  ownWrites: number;
}

export interface Store {
  readonly path: string;
  close(): void;

  beginSnapshot(kind: SnapshotKind): number;
  finishSnapshot(id: number, status: Exclude<SnapshotStatus, 'running'>, summary: Record<string, unknown>): void;
  /** Marks snapshots left 'running' by a crashed process as 'failed'; returns their ids. */
  failInterruptedSnapshots(): number[];
  listSnapshots(): SnapshotInfo[];
  getSnapshot(id: number): SnapshotInfo | null;
  latestCompleteSnapshot(): number | null;

  /**
   * Applies a batch in ONE transaction (upserts, then listings, then gone marks, then the cursor).
   * Async because large batches are written in chunks of at most ~50 ms with the event loop
   * yielded between chunks, inside the same transaction. Calls are serialised.
   * A content hash skips unchanged entities (no new version).
   */
  apply(snapshotId: number, batch: WriteBatch): Promise<ApplyResult>;

  getCursor(workspaceId: string): Cursor | null;
  /** Drop a cursor (e.g. workspace excluded or forced full). */
  clearCursor(workspaceId: string): void;
  /** Ids of activity rows already stored, among `ids`. */
  knownActivityIds(ids: string[]): Set<string>;
  /** Among `modules` of the workspace, those a stored `module_deleted` feed row names — by id, or by
   * name where the row carries no id (the deployed service's rows carry none). */
  loggedModuleDeletions(workspaceId: string, modules: ReadonlyArray<{ id: string; name: string }>): Set<string>;
  /**
   * When each current part of the workspace (its own lists, each current module) was last read in
   * full. A part never marked since this table existed counts as read by the last full pass.
   */
  verifiedParts(workspaceId: string): VerifiedPart[];
  /**
   * Records among `ids` that were stored once and have since been marked gone: null for one that
   * stays gone; its last version for one the feed shows alive since — a record row first stored
   * after the mark, or its id in `revivedBy` (new rows of a pass, not stored yet), names a move or
   * a change, as when a restore moves a record out of a deleted collection.
   */
  formerRecords(ids: string[], revivedBy?: ReadonlySet<string>): Map<string, BoardRecord | null>;

  /** What changed per module between two snapshots (counts, for the tripwire). */
  changeCounts(from: number, to: number): ModuleChanges[];

  /** State as of snapshot N (default: the latest complete one; null when there is none). */
  stateAt(snapshotId?: number): StateReader | null;
  /** Snapshots (complete ones) whose state holds entity `id` of `kind`. */
  snapshotsHolding(kind: 'workspace' | 'module' | 'record', id: string): number[];

  /**
   * Consistent standalone copy whose views show snapshot N (default latest complete; N must be a
   * complete snapshot); mode 0600. Refuses an existing target unless `opts.overwrite`.
   */
  exportTo(outPath: string, snapshotId?: number, opts?: { overwrite?: boolean }): Promise<void>;
  /**
   * One file per view (CSV or JSON Lines) as of snapshot N (the same rules), in the folder `outDir`
   * (created 0700; must not exist or be empty), files 0600; streamed. Returns what it wrote.
   */
  exportFiles(outDir: string, format: FileFormat, snapshotId?: number): Promise<ExportedFile[]>;
  verify(): VerifyReport;

  /** Raw handle for other stores in this folder (restore journal, daemon metrics). Do not write
   * through it while an apply() is in flight: the write would join (and roll back with) the batch. */
  readonly db: import('better-sqlite3').Database;
}

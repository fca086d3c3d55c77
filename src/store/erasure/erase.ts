// `wbsync erase`: removes a person, records or a module from every version, for good. Steps:
//   1. select (what the target takes with it) and write it down in the ledger as 'running', ids
//      only: from this transaction on the store's writer refuses to store it again;
//   2. rewrite the history in short transactions, with secure_delete on (freed bytes are zeroed);
//   3. merge the search index, mark the erasure complete;
//   4. give the freed pages back and checkpoint the WAL to zero length, so no old page image
//      holding the erased bytes stays in the -wal file.
// A run killed anywhere leaves a database `verify` accepts; any later `wbsync erase` finishes
// erasures left running before doing its own.
import type Database from 'better-sqlite3';
import { WbsyncError } from '../../domain/errors.js';
import { isEmptyErasedSet, type ErasedSet } from './erasure-filter.js';
import { activeErasure, beginErasure, completeErasure, erasedSet, listErasures, type ErasedId, type ErasureEntry } from './erasure-ledger.js';
import { learnPeople, rewriteHistory, type TableCounts } from './rewrite.js';
import { moduleSelection, perSnapshot, recordClosure, withTarget, type RecordLink, type Target } from './selection.js';

export interface EraseOptions {
  targets: Target[];
  dryRun: boolean;
  reason: string | null;
  now: () => Date;
  /** Version rows read per step (default 20,000); at most 500 of them written per transaction. */
  chunk?: number;
  /** No target: only finish the erasures an earlier run left running (the daemon, after a pass). */
  pendingOnly?: boolean;
  /** Takes the daemon's lock for the file rewrite; `heldBy` when a daemon holds it. Unset: no lock. */
  exclusive?: () => { release: () => void } | { heldBy: string; release: () => void };
}

export interface EraseResult {
  dryRun: boolean;
  targets: Target[];
  /** Entity ids the targets take with them (sub-records...), per kind. */
  selected: Record<string, number>;
  /** Version rows deleted and rewritten per table (dry run: that would be). */
  tables: Record<string, TableCounts>;
  /** Snapshot id → versions it shows that are deleted or rewritten. */
  snapshots: Record<number, number>;
  /** Erasures an earlier, interrupted run left running, finished by this one. */
  resumed: Array<{ kind: string; id: string }>;
  /** Timing: the row rewrite and the file rewrite (vacuum + checkpoint), milliseconds. */
  timings: { rewriteMs: number; compactMs: number; longestTransactionMs: number };
  /** Bytes of the file after (not in a dry run). */
  fileBytes?: number;
  /** The file was rewritten (VACUUM) and the WAL emptied: the erasure is complete. */
  complete?: boolean;
  note?: string;
}

function recordLinks(db: Database.Database): RecordLink[] {
  return (db.prepare('SELECT DISTINCT id, parent_record_id, module_id, workspace_id FROM record_versions').all() as Array<{ id: string; parent_record_id: string | null; module_id: string; workspace_id: string }>).map((r) => ({
    id: r.id, parentRecordId: r.parent_record_id, moduleId: r.module_id, workspaceId: r.workspace_id,
  }));
}

/** The ids a target takes with it; a target the database never held is refused. */
function select(db: Database.Database, t: Target, links: RecordLink[]): ErasedId[] {
  if (t.kind === 'user') {
    const known = db.prepare(`SELECT 1 FROM member_versions WHERE user_id = ? UNION ALL SELECT 1 FROM amendment_versions WHERE user_id = ? UNION ALL SELECT 1 FROM activity_versions WHERE user_id = ? LIMIT 1`).get(t.id, t.id, t.id);
    if (!known && !activeErasure(db, 'user', t.id)) throw notFound(t);
    return [];
  }
  if (t.kind === 'module') {
    const ws = db.prepare('SELECT workspace_id FROM module_versions WHERE id = ? LIMIT 1').pluck().get(t.id) as string | undefined;
    if (ws === undefined && !activeErasure(db, 'module', t.id)) throw notFound(t);
    return moduleSelection(t.id, ws ?? null, links);
  }
  if (!links.some((l) => l.id === t.id) && !activeErasure(db, 'record', t.id)) throw notFound(t);
  return recordClosure([t.id], links);
}

const notFound = (t: Target): WbsyncError =>
  new WbsyncError('usage', `no ${t.kind} ${t.id} in any snapshot of this database`, {
    hint: t.kind === 'user' ? 'give the user id as the members view shows it (user_id)' : `check the id with the ${t.kind}s view or 'wbsync snapshots'`,
  });

/** The amendments the selected records held (listed in the ledger so restores can name them). */
function amendmentIds(db: Database.Database, records: ErasedId[]): ErasedId[] {
  if (records.length === 0) return [];
  const out: ErasedId[] = [];
  const q = db.prepare('SELECT DISTINCT id, module_id, workspace_id FROM amendment_versions WHERE record_id = ?');
  for (const r of records) {
    if (r.kind !== 'record') continue;
    for (const a of q.all(r.entityId) as Array<{ id: string; module_id: string | null; workspace_id: string | null }>) out.push({ kind: 'amendment', entityId: a.id, moduleId: a.module_id, workspaceId: a.workspace_id });
  }
  return out;
}

const fileBytes = (db: Database.Database): number => (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);

/**
 * Rewrites the whole file (VACUUM: every page written afresh, so no stale bytes stay in free space
 * that passes before this erasure left behind) and empties the WAL. Needs the database to itself:
 * `exclusive` takes the daemon's lock, or says who holds it.
 */
function compact(db: Database.Database, exclusive: EraseOptions['exclusive']): { done: boolean; note?: string } {
  const lock = exclusive ? exclusive() : { release: () => undefined };
  if ('heldBy' in lock) {
    return { done: false, note: `a daemon (${lock.heldBy}) is using the database: the history is rewritten and the ledger keeps syncs from storing it again, but the file may still hold erased bytes in free space. The daemon finishes it after its next full pass; or run the same wbsync erase again to finish now (it takes its turn between the daemon's passes and only compacts then).` };
  }
  try {
    if ((db.pragma('auto_vacuum', { simple: true }) as number) !== 2) db.pragma('auto_vacuum = INCREMENTAL');
    db.exec('VACUUM');
    // a reader (a report) pins old page images in the WAL: retry for a while
    for (let i = 0; i < 50; i++) {
      const r = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
      if (r[0] && r[0].busy === 0) return { done: true };
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
    return { done: false, note: 'a reader kept the WAL busy: it may still hold old page images; run the same wbsync erase again when nothing reads the database' };
  } catch (e) {
    if (/busy|locked/i.test(String((e as Error).message))) return { done: false, note: `the database was busy (${(e as Error).message}); run the same wbsync erase again to finish the file rewrite` };
    throw e;
  } finally {
    lock.release();
  }
}

/** Refuses (WbsyncError 'usage') a target this database never held; reads only. */
export function checkTargets(db: Database.Database, targets: Target[]): void {
  const links = recordLinks(db);
  for (const t of targets) select(db, t, links);
}

export function erase(db: Database.Database, opts: EraseOptions): EraseResult {
  const chunk = opts.chunk ?? 20_000;
  if (opts.targets.length === 0 && !opts.pendingOnly) throw new WbsyncError('usage', 'erase needs a target', { hint: "give --user ID, --record ID… or --module ID (see 'wbsync erase --help')" });
  const links = recordLinks(db);
  const selections = opts.targets.map((t) => ({ target: t, ids: select(db, t, links) }));
  const resumed = listErasures(db).filter((e: ErasureEntry) => e.status === 'running' && e.liftedAt === null && !opts.targets.some((t) => t.kind === e.kind && t.id === e.entityId));
  let set: ErasedSet = erasedSet(db);
  for (const s of selections) {
    s.ids = [...s.ids, ...amendmentIds(db, s.ids)];
    set = withTarget(set, s.target, s.ids);
  }
  const selected: Record<string, number> = {};
  for (const s of selections) for (const x of s.ids) selected[x.kind] = (selected[x.kind] ?? 0) + 1;
  const people = learnPeople(db, set);
  const snapshotIds = db.prepare('SELECT id FROM snapshot_runs WHERE id NOT IN (SELECT snapshot_id FROM snapshot_forgets)').pluck().all() as number[];
  const intervals: Array<[number, number | null]> = [];
  const onTouched = (from: number, to: number | null): void => void intervals.push([from, to]);
  let longest = 0;

  if (opts.dryRun) {
    const t0 = performance.now();
    const tables = isEmptyErasedSet(set) ? {} : rewriteHistory(db, set, people, { dryRun: true, chunk, onTouched });
    return { dryRun: true, targets: opts.targets, selected, tables, snapshots: perSnapshot(intervals, snapshotIds), resumed: resumed.map((e) => ({ kind: e.kind, id: e.entityId })), timings: { rewriteMs: performance.now() - t0, compactMs: 0, longestTransactionMs: 0 } };
  }

  db.pragma('secure_delete = ON');
  const t0 = performance.now();
  const ids = selections.map((s) => beginErasure(db, s.target.kind, s.target.id, opts.reason, opts.now().toISOString(), s.ids));
  const onTransaction = (ms: number): void => void (longest = Math.max(longest, ms));
  const tables = rewriteHistory(db, set, people, { dryRun: false, chunk, onTouched, onTransaction });
  const rewriteMs = performance.now() - t0;
  const c0 = performance.now();
  const compacted = compact(db, opts.exclusive);
  const compactMs = performance.now() - c0;
  // complete only once the bytes are gone from the file: a 'running' entry is finished by a re-run
  if (compacted.done) {
    db.transaction(() => {
      for (const id of ids) completeErasure(db, id, opts.now().toISOString());
      for (const e of resumed) completeErasure(db, e.id, opts.now().toISOString());
    }).immediate();
    db.pragma('wal_checkpoint(TRUNCATE)');
  }
  return {
    dryRun: false,
    targets: opts.targets,
    selected,
    tables,
    snapshots: perSnapshot(intervals, snapshotIds),
    resumed: resumed.map((e) => ({ kind: e.kind, id: e.entityId })),
    timings: { rewriteMs, compactMs, longestTransactionMs: longest },
    fileBytes: fileBytes(db),
    complete: compacted.done,
    ...(compacted.note ? { note: compacted.note } : {}),
  };
}

/**
 * Finishes what `wbsync erase` left running — stopped short of the file rewrite by a daemon's lock,
 * or killed: the daemon calls this after a full pass, holding the lock itself, so an erasure made
 * beside a running daemon completes without stopping it. Null when nothing is pending.
 */
export function finishPendingErasures(db: Database.Database, now: () => Date): EraseResult | null {
  if (!listErasures(db).some((e) => e.status === 'running' && e.liftedAt === null)) return null;
  return erase(db, { targets: [], pendingOnly: true, dryRun: false, reason: null, now });
}

// `wbsync prune`: forget the snapshots a retention policy does not keep, without changing what any
// kept snapshot shows. Versions are intervals [valid_from, valid_to) of snapshot ids; forgetting
// snapshots merges them: a version no surviving snapshot sees is deleted, and every other version's
// bounds move to the next surviving snapshot at or after them (the same surviving snapshots see
// it, so every kept state is unchanged, row for row).
//
// Crash safety: the snapshots to forget are written down first (snapshot_forgets; listings hide
// them from then on), then each table is rewritten in short transactions of whole entities (all the
// versions of a key at once, so no two versions ever overlap, even half-way), then the snapshot
// rows go. A prune killed anywhere leaves a database `verify` accepts; the next prune finishes the
// job. Short transactions let a running daemon's writes through between them.

import type Database from 'better-sqlite3';
import { WbsyncError } from '../domain/errors.js';
import { applyPolicy, checkPolicy, durationBefore, type RetentionPolicy } from './policy.js';
import { protectedSnapshots, type Protection } from './protection.js';

export interface PruneOptions {
  policy: RetentionPolicy;
  /** Activity rows older than this many days go too (unset: activity is kept, it is the audit trail). */
  activityDays?: number;
  dryRun?: boolean;
  now: Date;
  /** Entities per transaction (default 2,000). */
  chunk?: number;
}

export interface ForgetItem {
  id: number;
  kind: string;
  status: string;
  startedAt: string;
}

export interface PruneResult {
  dryRun: boolean;
  forget: ForgetItem[];
  keep: { id: number; reasons: string[] }[];
  /** Snapshots the policy would forget but something protects. */
  protected: Protection[];
  /** Version rows deleted (or that would be), per table. */
  rows: Record<string, number>;
  /** Dry run: an estimate from the tables' average row size; otherwise the file's shrink. */
  bytesFreed: number;
  /** Finished what an interrupted prune had decided. */
  resumed: number[];
  /** The database could not be compacted now (busy): the space is free inside the file. */
  compactNote?: string;
}

/** Tables holding versions (every table with validity columns, later migrations' included). */
export function versionTables(db: Database.Database): { table: string; key: string[] }[] {
  const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%\\_versions' ESCAPE '\\' ORDER BY name`).pluck().all() as string[];
  return tables.map((table) => {
    // the key is what the partial unique index on current versions names
    const idx = db.prepare(`SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name = ?`).pluck().get(table, `${table}_current`) as string | undefined;
    const m = idx ? /\(([^)]+)\)\s+WHERE/i.exec(idx) : null;
    if (!m) throw new WbsyncError('internal', `version table ${table} has no ${table}_current index`);
    return { table, key: m[1]!.split(',').map((s) => s.trim()) };
  });
}

/** Decides what goes. Pure reads. */
function decide(db: Database.Database, opts: PruneOptions): { forget: ForgetItem[]; keep: PruneResult['keep']; protected: Protection[]; pending: number[] } {
  checkPolicy(opts.policy);
  const pending = db.prepare('SELECT snapshot_id FROM snapshot_forgets ORDER BY snapshot_id').pluck().all() as number[];
  const pendingSet = new Set(pending);
  const all = (db.prepare('SELECT id, kind, status, started_at FROM snapshot_runs ORDER BY id').all() as { id: number; kind: string; status: string; started_at: string }[]).filter((s) => !pendingSet.has(s.id));
  const complete = all.filter((s) => s.status === 'complete');
  const latest = complete.at(-1)?.id ?? null;
  if (latest === null) return { forget: [], keep: [], protected: [], pending };
  const verdicts = applyPolicy(complete.map((s) => ({ id: s.id, at: s.started_at })), opts.policy, opts.now);
  const keptByPolicy = new Map(verdicts.filter((v) => v.keep).map((v) => [v.id, v.reasons]));
  const guards = protectedSnapshots(db, latest, opts.now);
  const guarded = new Map(guards.map((g) => [g.id, g]));
  const forget: ForgetItem[] = [];
  const shielded: Protection[] = [];
  const keep: PruneResult['keep'] = [];
  for (const s of all) {
    // nothing at or after the latest complete snapshot, nor a pass still running, is ever touched
    if (s.id >= latest || s.status === 'running') {
      if (s.status === 'complete') keep.push({ id: s.id, reasons: [...(keptByPolicy.get(s.id) ?? []), 'latest'] });
      continue;
    }
    const reasons = keptByPolicy.get(s.id);
    if (reasons) {
      keep.push({ id: s.id, reasons });
      continue;
    }
    const g = guarded.get(s.id);
    if (g) {
      shielded.push(g);
      keep.push({ id: s.id, reasons: [g.reason] });
      continue;
    }
    forget.push({ id: s.id, kind: s.kind, status: s.status, startedAt: s.started_at });
  }
  return { forget, keep: keep.sort((a, b) => b.id - a.id), protected: shielded, pending };
}

const estimateBytes = (db: Database.Database, table: string, rows: number): number => {
  if (rows === 0) return 0;
  const total = db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
  const bytes = db.prepare(`SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name IN (SELECT name FROM sqlite_master WHERE tbl_name = ?)`).pluck().get(table) as number;
  return total ? Math.round((bytes / total) * rows) : 0;
};

const fileBytes = (db: Database.Database): number => (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);

/** Surviving snapshot ids into a temp table (this connection only): every snapshot not forgotten. */
function loadSurvivors(db: Database.Database): void {
  db.exec('CREATE TEMP TABLE IF NOT EXISTS prune_keep (id INTEGER PRIMARY KEY)');
  db.exec('DELETE FROM temp.prune_keep');
  db.exec('INSERT INTO temp.prune_keep SELECT id FROM snapshot_runs WHERE id NOT IN (SELECT snapshot_id FROM snapshot_forgets)');
}

const INVISIBLE = `NOT EXISTS (SELECT 1 FROM temp.prune_keep k WHERE k.id >= v.valid_from AND k.id < coalesce(v.valid_to, 9223372036854775807))`;
const TOUCHED = `(v.valid_from IN (SELECT snapshot_id FROM snapshot_forgets) OR v.valid_to IN (SELECT snapshot_id FROM snapshot_forgets))`;
const NEXT = (col: string): string => `(SELECT min(k.id) FROM temp.prune_keep k WHERE k.id >= ${col})`;

/** Rewrites one table's history for the forgotten snapshots, a chunk of whole entities at a time. */
function mergeTable(db: Database.Database, table: string, key: string[], chunk: number, activityBefore: string | null): number {
  const keyList = key.join(', ');
  const tuple = `(${keyList})`;
  // the entities holding a version that names a forgotten snapshot: one scan, into a numbered list
  db.exec('DROP TABLE IF EXISTS temp.prune_keys');
  db.exec(`CREATE TEMP TABLE prune_keys AS SELECT DISTINCT ${keyList} FROM ${table} v WHERE ${TOUCHED} ORDER BY ${keyList}`);
  const last = (db.prepare('SELECT max(rowid) FROM temp.prune_keys').pluck().get() as number | null) ?? 0;
  const inChunk = `${tuple} IN (SELECT ${keyList} FROM temp.prune_keys WHERE rowid BETWEEN ? AND ?)`;
  const del = db.prepare(`DELETE FROM ${table} AS v WHERE ${inChunk} AND ${TOUCHED} AND ${INVISIBLE}`);
  const moveFrom = db.prepare(`UPDATE ${table} AS v SET valid_from = ${NEXT('v.valid_from')} WHERE ${inChunk} AND v.valid_from IN (SELECT snapshot_id FROM snapshot_forgets)`);
  const moveTo = db.prepare(`UPDATE ${table} AS v SET valid_to = ${NEXT('v.valid_to')} WHERE ${inChunk} AND v.valid_to IN (SELECT snapshot_id FROM snapshot_forgets)`);
  let removed = 0;
  for (let lo = 1; lo <= last; lo += chunk) {
    const hi = lo + chunk - 1;
    db.transaction(() => {
      removed += del.run(lo, hi).changes;
      moveFrom.run(lo, hi);
      moveTo.run(lo, hi);
    }).immediate();
  }
  db.exec('DROP TABLE IF EXISTS temp.prune_keys');
  if (activityBefore !== null && table === 'activity_versions') {
    removed += db.prepare('DELETE FROM activity_versions WHERE created_at < ?').run(activityBefore).changes;
  }
  return removed;
}

/** What a prune would do, or does it. */
export function prune(db: Database.Database, opts: PruneOptions): PruneResult {
  const decided = decide(db, opts);
  const activityBefore = opts.activityDays !== undefined ? durationBefore(opts.now, `${opts.activityDays}d`).toISOString() : null;
  const tables = versionTables(db);
  const rows: Record<string, number> = {};
  if (opts.dryRun) {
    // count against the survivors this prune would leave, without writing anything
    db.exec('CREATE TEMP TABLE IF NOT EXISTS prune_keep (id INTEGER PRIMARY KEY)');
    db.transaction(() => {
      db.exec('DELETE FROM temp.prune_keep');
      const gone = new Set([...decided.pending, ...decided.forget.map((f) => f.id)]);
      const ins = db.prepare('INSERT INTO temp.prune_keep (id) VALUES (?)');
      for (const id of db.prepare('SELECT id FROM snapshot_runs').pluck().all() as number[]) if (!gone.has(id)) ins.run(id);
    })();
    const goneList = JSON.stringify([...decided.pending, ...decided.forget.map((f) => f.id)]);
    let bytes = 0;
    for (const { table } of tables) {
      let n = db.prepare(`SELECT count(*) FROM ${table} v WHERE (v.valid_from IN (SELECT value FROM json_each(?)) OR v.valid_to IN (SELECT value FROM json_each(?))) AND ${INVISIBLE}`).pluck().get(goneList, goneList) as number;
      if (activityBefore !== null && table === 'activity_versions') n += db.prepare('SELECT count(*) FROM activity_versions WHERE created_at < ?').pluck().get(activityBefore) as number;
      if (n) rows[table] = n;
      bytes += estimateBytes(db, table, n);
    }
    return { dryRun: true, forget: decided.forget, keep: decided.keep, protected: decided.protected, rows, bytesFreed: bytes, resumed: decided.pending };
  }

  const before = fileBytes(db);
  const decidedAt = opts.now.toISOString();
  // 1. write the decision down: from here on the forgotten snapshots are not shown anywhere
  db.transaction(() => {
    const ins = db.prepare('INSERT OR IGNORE INTO snapshot_forgets (snapshot_id, decided_at) VALUES (?, ?)');
    for (const f of decided.forget) ins.run(f.id, decidedAt);
  }).immediate();
  loadSurvivors(db);
  // 2. merge each table's intervals, whole entities per transaction
  for (const { table, key } of tables) {
    const n = mergeTable(db, table, key, opts.chunk ?? 2000, activityBefore);
    if (n) rows[table] = n;
  }
  // 3. what else names a forgotten snapshot moves to the next survivor; then the snapshots go.
  // Without foreign-key checks: each deleted snapshot row would scan every version table (valid_from
  // has no index of its own) — 1,000 snapshots took seconds. Nothing names them any more: step 2
  // moved every version that did, and a pass running meanwhile only writes ids after the latest.
  db.pragma('foreign_keys = OFF');
  try {
    finishForget(db, tables);
  } finally {
    db.pragma('foreign_keys = ON');
  }
  db.exec('DROP TABLE IF EXISTS temp.prune_keep');
  const compactNote = compact(db);
  return { dryRun: false, forget: decided.forget, keep: decided.keep, protected: decided.protected, rows, bytesFreed: Math.max(0, before - fileBytes(db)), resumed: decided.pending, ...(compactNote ? { compactNote } : {}) };
}


/** Step 3 of a prune, one transaction: the last references move, the forgotten snapshots go. */
function finishForget(db: Database.Database, tables: { table: string }[]): void {
  db.transaction(() => {
    for (const { table } of tables) {
      // the cheap half of a foreign-key check (valid_to is indexed): a bug here must not pass silently
      const left = db.prepare(`SELECT vid FROM ${table} WHERE valid_to IN (SELECT snapshot_id FROM snapshot_forgets) LIMIT 1`).get();
      if (left) throw new WbsyncError('internal', `prune: ${table} still names a forgotten snapshot; nothing was deleted — run prune again`);
    }
    for (const t of ['cursors', 'verified_parts']) {
      db.prepare(`UPDATE ${t} AS v SET snapshot_id = ${NEXT('v.snapshot_id')} WHERE snapshot_id IN (SELECT snapshot_id FROM snapshot_forgets)`).run();
    }
    db.prepare('DELETE FROM snapshot_holds WHERE snapshot_id IN (SELECT snapshot_id FROM snapshot_forgets)').run();
    const ids = JSON.stringify(db.prepare('SELECT snapshot_id FROM snapshot_forgets').pluck().all());
    db.prepare('DELETE FROM snapshot_forgets').run();
    db.prepare('DELETE FROM snapshot_runs WHERE id IN (SELECT value FROM json_each(?))').run(ids);
  }).immediate();
}

/**
 * Gives the freed pages back to the file system. A database in incremental auto-vacuum mode (every
 * database created since 0.2) releases them in steps, letting other writers in between; an older one
 * is converted once with VACUUM, which needs the database to itself for a moment.
 */
function compact(db: Database.Database): string | undefined {
  try {
    if ((db.pragma('auto_vacuum', { simple: true }) as number) !== 2) {
      db.pragma('auto_vacuum = INCREMENTAL');
      db.exec('VACUUM');
    } else {
      for (;;) {
        const free = db.pragma('freelist_count', { simple: true }) as number;
        if (free === 0) break;
        db.pragma('incremental_vacuum(2000)');
        if ((db.pragma('freelist_count', { simple: true }) as number) >= free) break;
      }
    }
    db.pragma('wal_checkpoint(TRUNCATE)');
    return undefined;
  } catch (e) {
    if (/busy|locked/i.test(String((e as Error).message))) return 'the database was busy: the space is free inside the file and the file shrinks at the next prune';
    throw e;
  }
}

// The erasure ledger (migration 015): which persons, records and modules were erased, by id, when
// and why — never their content. Restore planners and the store's writer ask it; erase.ts beside this file writes
// it. An entry is 'running' while the history is rewritten and 'complete' after; a lifted entry
// (wbsync erase --lift) stays as the record of what was done but no longer filters anything.
import type Database from 'better-sqlite3';
import type { ErasedSet } from './erasure-filter.js';
import { commandLine } from '../../domain/shell-command.js';

export type ErasureKind = 'user' | 'record' | 'module';

export interface ErasureEntry {
  id: number;
  kind: ErasureKind;
  entityId: string;
  reason: string | null;
  status: 'running' | 'complete';
  startedAt: string;
  finishedAt: string | null;
  liftedAt: string | null;
}

export interface ErasedId {
  kind: 'record' | 'amendment' | 'module';
  entityId: string;
  moduleId: string | null;
  workspaceId: string | null;
}

/** What a restore skips because it was erased: the entity and the erasure that took it. */
export interface ErasedSkip {
  kind: ErasureKind | 'amendment';
  id: string;
  erasedAt: string;
  /** the command that made the erasure (its target may be another entity: a sub-record's record) */
  erasure: string;
}

interface Row {
  id: number;
  kind: ErasureKind;
  entity_id: string;
  reason: string | null;
  status: 'running' | 'complete';
  started_at: string;
  finished_at: string | null;
  lifted_at: string | null;
}

const toEntry = (r: Row): ErasureEntry => ({
  id: r.id,
  kind: r.kind,
  entityId: r.entity_id,
  reason: r.reason,
  status: r.status,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
  liftedAt: r.lifted_at,
});

const hasLedger = (db: Database.Database): boolean =>
  db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'erasures'`).get() !== undefined;

/** Every entry, lifted ones included, oldest first. */
export function listErasures(db: Database.Database): ErasureEntry[] {
  if (!hasLedger(db)) return [];
  return (db.prepare('SELECT * FROM erasures ORDER BY id').all() as Row[]).map(toEntry);
}

/** The active (not lifted) entry for a target, if any. */
export function activeErasure(db: Database.Database, kind: ErasureKind, entityId: string): ErasureEntry | null {
  const r = db.prepare('SELECT * FROM erasures WHERE kind = ? AND entity_id = ? AND lifted_at IS NULL').get(kind, entityId) as Row | undefined;
  return r ? toEntry(r) : null;
}

/** Writes an erasure down as running, with every entity id it removes (one transaction). */
export function beginErasure(db: Database.Database, kind: ErasureKind, entityId: string, reason: string | null, at: string, ids: ErasedId[]): number {
  return db.transaction(() => {
    const existing = activeErasure(db, kind, entityId);
    const id = existing ? existing.id : Number(db.prepare(`INSERT INTO erasures (kind, entity_id, reason, status, started_at) VALUES (?, ?, ?, 'running', ?)`).run(kind, entityId, reason, at).lastInsertRowid);
    if (existing) db.prepare(`UPDATE erasures SET status = 'running', finished_at = NULL WHERE id = ?`).run(id);
    const ins = db.prepare('INSERT OR IGNORE INTO erased_ids (erasure_id, kind, entity_id, module_id, workspace_id) VALUES (?, ?, ?, ?, ?)');
    for (const x of ids) ins.run(id, x.kind, x.entityId, x.moduleId, x.workspaceId);
    return id;
  }).immediate();
}

export function completeErasure(db: Database.Database, id: number, at: string): void {
  db.prepare(`UPDATE erasures SET status = 'complete', finished_at = ? WHERE id = ?`).run(at, id);
}

/** Lifts every active entry naming `entityId` (any kind). Returns the entries lifted. */
export function liftErasure(db: Database.Database, entityId: string, at: string): ErasureEntry[] {
  return db.transaction(() => {
    const rows = (db.prepare('SELECT * FROM erasures WHERE entity_id = ? AND lifted_at IS NULL').all(entityId) as Row[]).map(toEntry);
    db.prepare('UPDATE erasures SET lifted_at = ? WHERE entity_id = ? AND lifted_at IS NULL').run(at, entityId);
    return rows.map((r) => ({ ...r, liftedAt: at }));
  }).immediate();
}

/** Ids every active erasure covers (what the writer filters and the rewrite removes). */
export function erasedSet(db: Database.Database): ErasedSet {
  const set = { users: new Set<string>(), records: new Set<string>(), modules: new Set<string>(), amendments: new Set<string>() };
  if (!hasLedger(db)) return set;
  for (const r of db.prepare('SELECT kind, entity_id FROM erasures WHERE lifted_at IS NULL').all() as Array<{ kind: ErasureKind; entity_id: string }>) {
    if (r.kind === 'user') set.users.add(r.entity_id);
    else if (r.kind === 'record') set.records.add(r.entity_id);
    else set.modules.add(r.entity_id);
  }
  for (const r of db.prepare('SELECT x.kind, x.entity_id FROM erased_ids x JOIN erasures e ON e.id = x.erasure_id WHERE e.lifted_at IS NULL').all() as Array<{ kind: string; entity_id: string }>) {
    if (r.kind === 'record') set.records.add(r.entity_id);
    else if (r.kind === 'module') set.modules.add(r.entity_id);
    else if (r.kind === 'amendment') set.amendments.add(r.entity_id);
  }
  return set;
}

/** A cheap fingerprint of the active ledger: the writer reloads its set only when this changes. */
export function ledgerStamp(db: Database.Database): string {
  if (!hasLedger(db)) return '';
  const r = db.prepare('SELECT count(*) AS n, coalesce(max(id), 0) AS m, count(lifted_at) AS l FROM erasures').get() as { n: number; m: number; l: number };
  return `${r.n}/${r.m}/${r.l}`;
}

/**
 * What erasures took from a module (or from a workspace's modules), for a restore to list as
 * skipped: erased modules, records and their sub-records, and the persons erased (whose
 * amendments' text and membership a restore never brings back).
 */
export function erasedIn(db: Database.Database, scope: { moduleIds?: string[]; workspaceId?: string }): ErasedSkip[] {
  if (!hasLedger(db)) return [];
  const out: ErasedSkip[] = [];
  const rows = db.prepare(`SELECT x.kind, x.entity_id, x.module_id, x.workspace_id, e.kind AS ekind, e.entity_id AS target, coalesce(e.finished_at, e.started_at) AS at
    FROM erased_ids x JOIN erasures e ON e.id = x.erasure_id WHERE e.lifted_at IS NULL AND x.kind IN ('record', 'module') ORDER BY x.erasure_id, x.kind, x.entity_id`).all() as Array<{
    kind: 'record' | 'module'; entity_id: string; module_id: string | null; workspace_id: string | null; ekind: ErasureKind; target: string; at: string;
  }>;
  const mods = scope.moduleIds ? new Set(scope.moduleIds) : null;
  for (const r of rows) {
    const inScope = (mods && r.module_id !== null && mods.has(r.module_id)) || (scope.workspaceId !== undefined && r.workspace_id === scope.workspaceId);
    if (inScope) out.push({ kind: r.kind, id: r.entity_id, erasedAt: r.at, erasure: commandLine(['wbsync', 'erase', `--${r.ekind}`, r.target]) });
  }
  for (const r of db.prepare(`SELECT entity_id, coalesce(finished_at, started_at) AS at FROM erasures WHERE kind = 'user' AND lifted_at IS NULL ORDER BY id`).all() as Array<{ entity_id: string; at: string }>) {
    out.push({ kind: 'user', id: r.entity_id, erasedAt: r.at, erasure: commandLine(['wbsync', 'erase', '--user', r.entity_id]) });
  }
  return out;
}

/** Every record an active erasure removed (for `restore records ID…`). */
export function erasedRecords(db: Database.Database): ErasedSkip[] {
  if (!hasLedger(db)) return [];
  return (db.prepare(`SELECT x.entity_id, e.kind AS ekind, e.entity_id AS target, coalesce(e.finished_at, e.started_at) AS at
    FROM erased_ids x JOIN erasures e ON e.id = x.erasure_id WHERE e.lifted_at IS NULL AND x.kind = 'record'`).all() as Array<{ entity_id: string; ekind: string; target: string; at: string }>)
    .map((r) => ({ kind: 'record' as const, id: r.entity_id, erasedAt: r.at, erasure: commandLine(['wbsync', 'erase', `--${r.ekind}`, r.target]) }));
}

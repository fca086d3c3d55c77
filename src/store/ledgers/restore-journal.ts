// The restore journal in the snapshot database (tables from migration 005): the run, the id map
// (old → new) written in one small transaction right after each create returns, the steps done,
// and the automations a run paused. It is what makes a restore resumable without duplicates.

import type Database from 'better-sqlite3';

/** What a restore creates, by kind (the id map's kinds). */
export type CreateKind = 'workspace' | 'module' | 'collection' | 'column' | 'record' | 'subrecord' | 'cell' | 'amendment' | 'automation';

/** Something a restore could not put back, and why (a refusal, kept by the journal). */
export interface NotRestored {
  entity: string;
  id: string;
  label: string;
  reason: string;
  /** The value the service refused (a cell's encoded value), when there is one. */
  value?: string;
  /** Set when the service refused the write during the run (HTTP status), not known beforehand. */
  status?: number;
}

export type RunStatus = 'running' | 'complete' | 'failed';

export interface RestoreRun {
  id: number;
  kind: 'module' | 'records' | 'rollback' | 'workspace';
  runKey: string;
  snapshotId: number;
  sourceIds: string[];
  targetWorkspaceId: string | null;
  newModuleId: string | null;
  status: RunStatus;
  startedAt: string;
  finishedAt: string | null;
  options: Record<string, unknown>;
  summary: Record<string, unknown>;
}

interface RunRow {
  id: number;
  kind: 'module' | 'records' | 'rollback' | 'workspace';
  run_key: string;
  snapshot_id: number;
  source_ids: string;
  target_workspace_id: string | null;
  new_module_id: string | null;
  status: RunStatus;
  started_at: string;
  finished_at: string | null;
  options: string;
  summary: string;
}

function toRun(r: RunRow): RestoreRun {
  return {
    id: r.id,
    kind: r.kind,
    runKey: r.run_key,
    snapshotId: r.snapshot_id,
    sourceIds: JSON.parse(r.source_ids) as string[],
    targetWorkspaceId: r.target_workspace_id,
    newModuleId: r.new_module_id,
    status: r.status,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    options: JSON.parse(r.options) as Record<string, unknown>,
    summary: JSON.parse(r.summary) as Record<string, unknown>,
  };
}

export interface NewRun {
  kind: 'module' | 'records' | 'rollback' | 'workspace';
  runKey: string;
  snapshotId: number;
  sourceIds: string[];
  targetWorkspaceId: string | null;
  options: Record<string, unknown>;
}

/** All runs, newest first (for diff's "was this module restored?"). */
export function listRuns(db: Database.Database): RestoreRun[] {
  return (db.prepare('SELECT * FROM restore_runs ORDER BY id DESC').all() as RunRow[]).map(toRun);
}

export function latestRun(db: Database.Database, runKey: string): RestoreRun | null {
  const row = db.prepare('SELECT * FROM restore_runs WHERE run_key = ? ORDER BY id DESC LIMIT 1').get(runKey) as RunRow | undefined;
  return row ? toRun(row) : null;
}

export function startRun(db: Database.Database, run: NewRun, now: string): RestoreRun {
  const info = db
    .prepare(
      `INSERT INTO restore_runs (kind, run_key, snapshot_id, source_ids, target_workspace_id, status, started_at, options)
       VALUES (?, ?, ?, ?, ?, 'running', ?, ?)`,
    )
    .run(run.kind, run.runKey, run.snapshotId, JSON.stringify(run.sourceIds), run.targetWorkspaceId, now, JSON.stringify(run.options));
  return toRun(db.prepare('SELECT * FROM restore_runs WHERE id = ?').get(Number(info.lastInsertRowid)) as RunRow);
}

/** The journal of one run: an in-memory mirror of its id map, every change written through at once. */
export class RunJournal {
  private readonly map = new Map<string, string>();
  private readonly kinds = new Map<string, CreateKind>();
  private readonly pending = new Set<string>();
  private readonly done = new Set<string>();
  private readonly newIds = new Set<string>();
  /** Old ids whose create the service refused: steps needing them are not sent. */
  private readonly refusedIds = new Set<string>();
  private readonly stmts;

  constructor(
    private readonly db: Database.Database,
    readonly run: RestoreRun,
    private readonly now: () => string = () => new Date().toISOString(),
  ) {
    this.stmts = {
      intend: db.prepare('INSERT OR IGNORE INTO restore_ids (run_id, kind, old_id, new_id, created_at) VALUES (?, ?, ?, NULL, ?)'),
      record: db.prepare(
        `INSERT INTO restore_ids (run_id, kind, old_id, new_id, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (run_id, old_id) DO UPDATE SET new_id = excluded.new_id`,
      ),
      step: db.prepare('INSERT OR IGNORE INTO restore_steps (run_id, step_key, done_at) VALUES (?, ?, ?)'),
    };
    for (const r of db.prepare('SELECT kind, old_id, new_id FROM restore_ids WHERE run_id = ?').all(run.id) as { kind: CreateKind; old_id: string; new_id: string | null }[]) {
      this.kinds.set(r.old_id, r.kind);
      if (r.new_id === null) this.pending.add(r.old_id);
      else {
        this.map.set(r.old_id, r.new_id);
        this.newIds.add(r.new_id);
      }
    }
    for (const r of db.prepare('SELECT step_key FROM restore_steps WHERE run_id = ?').all(run.id) as { step_key: string }[]) this.done.add(r.step_key);
    for (const r of db.prepare('SELECT step_key, old_id FROM restore_refusals WHERE run_id = ?').all(run.id) as { step_key: string; old_id: string | null }[]) {
      this.done.add(r.step_key);
      if (r.old_id !== null) this.refusedIds.add(r.old_id);
    }
  }

  newId(oldId: string): string | undefined {
    return this.map.get(oldId);
  }
  /** A create was sent and may have happened (no answer recorded). */
  isPending(oldId: string): boolean {
    return this.pending.has(oldId);
  }
  /** Whether `newId` already stands for some old object (a lookup must not claim it twice). */
  isClaimed(newId: string): boolean {
    return this.newIds.has(newId);
  }
  isDone(stepKey: string): boolean {
    return this.done.has(stepKey);
  }
  idMap(): ReadonlyMap<string, string> {
    return this.map;
  }
  /** The service refused creating this old object (in this run or an earlier invocation of it). */
  isRefused(oldId: string): boolean {
    return this.refusedIds.has(oldId);
  }

  /** A write the service refused: recorded with its reason and settled (a resume does not resend it). */
  refused(stepKey: string, oldId: string | null, entry: NotRestored): void {
    this.db
      .prepare(
        `INSERT OR IGNORE INTO restore_refusals (run_id, step_key, old_id, entity, entity_id, label, reason, status, value, refused_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(this.run.id, stepKey, oldId, entry.entity, entry.id, entry.label, entry.reason, entry.status ?? null, entry.value ?? null, this.now());
    this.done.add(stepKey);
    // (a live column kept in place is both: mapped onto itself for what needs it, refused for the report)
    if (oldId !== null) this.refusedIds.add(oldId);
  }

  /** Every refusal of the run, oldest first. */
  refusals(): NotRestored[] {
    const rows = this.db
      .prepare('SELECT entity, entity_id, label, reason, status, value FROM restore_refusals WHERE run_id = ? ORDER BY rowid')
      .all(this.run.id) as { entity: string; entity_id: string; label: string; reason: string; status: number | null; value: string | null }[];
    return rows.map((r) => ({ entity: r.entity, id: r.entity_id, label: r.label, reason: r.reason, ...(r.status !== null ? { status: r.status } : {}), ...(r.value !== null ? { value: r.value } : {}) }));
  }

  /** Written before the request leaves: after a crash this row says "look it up first". */
  intend(kind: CreateKind, oldId: string): void {
    if (this.pending.has(oldId) || this.map.has(oldId)) return;
    this.stmts.intend.run(this.run.id, kind, oldId, this.now());
    this.pending.add(oldId);
    this.kinds.set(oldId, kind);
  }

  /** One small transaction per created object, right after the create returns. */
  created(kind: CreateKind, oldId: string, newId: string): void {
    this.stmts.record.run(this.run.id, kind, oldId, newId, this.now());
    this.map.set(oldId, newId);
    this.newIds.add(newId);
    this.pending.delete(oldId);
  }

  /** Maps an old id onto itself (records un-archived in place keep their ids). */
  same(kind: CreateKind, id: string): void {
    this.created(kind, id, id);
  }

  /** `same` for many live objects at once, in one transaction (those mapped already are kept). */
  sameAll(entries: Iterable<readonly [string, CreateKind]>): void {
    const todo = [...entries].filter(([id]) => !this.map.has(id));
    this.db.transaction(() => {
      for (const [id, kind] of todo) this.stmts.record.run(this.run.id, kind, id, id, this.now());
    })();
    for (const [id, kind] of todo) {
      this.map.set(id, id);
      this.newIds.add(id);
      this.kinds.set(id, kind);
      this.pending.delete(id);
    }
  }

  /** Drops from memory (never from the database) a created object no later step can name, once
   * its step is done — a batch's cells after the batch: a large workspace's map is not held whole.
   * A resumed run reads the journal back from the database as ever. */
  release(oldId: string, stepKey: string): void {
    const n = this.map.get(oldId);
    if (n === undefined || !this.done.has(stepKey)) return;
    this.map.delete(oldId);
    this.newIds.delete(n);
    this.kinds.delete(oldId);
    this.done.delete(stepKey);
  }

  stepDone(stepKey: string): void {
    this.stmts.step.run(this.run.id, stepKey, this.now());
    this.done.add(stepKey);
  }

  setNewModule(moduleId: string): void {
    this.db.prepare('UPDATE restore_runs SET new_module_id = ? WHERE id = ?').run(moduleId, this.run.id);
  }

  finish(status: Exclude<RunStatus, 'running'>, summary: Record<string, unknown>): void {
    this.db.prepare('UPDATE restore_runs SET status = ?, finished_at = ?, summary = ? WHERE id = ?').run(status, this.now(), JSON.stringify(summary), this.run.id);
  }

  /** Resuming: the run is running again. */
  reopen(): void {
    this.db.prepare("UPDATE restore_runs SET status = 'running', finished_at = NULL WHERE id = ?").run(this.run.id);
  }

  // --- automations paused for the run (--pause-automations)
  pausedAutomations(): { id: string; state: 'paused' | 'reactivated' }[] {
    return (this.db.prepare('SELECT automation_id AS id, state FROM restore_paused WHERE run_id = ?').all(this.run.id) as { id: string; state: 'paused' | 'reactivated' }[]);
  }
  /** Written BEFORE the PUT that pauses it, so a crash in between still re-activates it. An automation
   * an earlier invocation of the run paused and re-activated is paused again: noted as paused. */
  markPaused(automationId: string): void {
    this.db
      .prepare("INSERT INTO restore_paused (run_id, automation_id, state) VALUES (?, ?, 'paused') ON CONFLICT (run_id, automation_id) DO UPDATE SET state = 'paused'")
      .run(this.run.id, automationId);
  }
  markReactivated(automationId: string): void {
    this.db.prepare("UPDATE restore_paused SET state = 'reactivated' WHERE run_id = ? AND automation_id = ?").run(this.run.id, automationId);
  }
}

/** Every id map of complete module runs: old module id → run (newest first). */
export function restoredModules(db: Database.Database): Map<string, RestoreRun> {
  const out = new Map<string, RestoreRun>();
  for (const r of listRuns(db)) if (r.kind === 'module' && r.status === 'complete' && r.newModuleId && !out.has(r.sourceIds[0])) out.set(r.sourceIds[0], r);
  return out;
}

export function idMapOf(db: Database.Database, runId: number): Map<string, string> {
  const rows = db.prepare('SELECT old_id, new_id FROM restore_ids WHERE run_id = ? AND new_id IS NOT NULL').all(runId) as { old_id: string; new_id: string }[];
  return new Map(rows.map((r) => [r.old_id, r.new_id]));
}

/** Objects that rollbacks of a module recreated with new ids (old → new), oldest run first. */
export function rolledBackIdMap(db: Database.Database, moduleId: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of listRuns(db).reverse()) {
    if (r.kind !== 'rollback' || r.status !== 'complete' || r.sourceIds[0] !== moduleId) continue;
    for (const [o, n] of idMapOf(db, r.id)) if (o !== n) out.set(o, n);
  }
  return out;
}

/** Old → new ids of every complete module run whose copy is among `liveModuleIds`. */
export function restoredIdMap(db: Database.Database, liveModuleIds: ReadonlySet<string>): Map<string, string> {
  const out = new Map<string, string>();
  // Oldest first, so a later restore of the same module wins.
  for (const r of listRuns(db).reverse()) {
    if (r.kind !== 'module' || r.status !== 'complete' || !r.newModuleId || !liveModuleIds.has(r.newModuleId)) continue;
    for (const [o, n] of idMapOf(db, r.id)) out.set(o, n);
  }
  return out;
}

/** A module wbsync restored: the source (as of the run's snapshot) and the copy it made. */
export interface ModuleRestorePair {
  runId: number;
  runKind: 'module' | 'workspace';
  snapshotId: number;
  oldModuleId: string;
  newModuleId: string;
  finishedAt: string | null;
}

/** Every module a complete module or workspace restore created, newest run first. */
export function moduleRestorePairs(db: Database.Database): ModuleRestorePair[] {
  const rows = db
    .prepare(
      `SELECT r.id, r.kind, r.snapshot_id, i.old_id, i.new_id, r.finished_at FROM restore_ids i JOIN restore_runs r ON r.id = i.run_id
        WHERE i.kind = 'module' AND i.new_id IS NOT NULL AND r.status = 'complete' AND r.kind IN ('module', 'workspace') ORDER BY r.id DESC`,
    )
    .all() as { id: number; kind: 'module' | 'workspace'; snapshot_id: number; old_id: string; new_id: string; finished_at: string | null }[];
  return rows.map((r) => ({ runId: r.id, runKind: r.kind, snapshotId: r.snapshot_id, oldModuleId: r.old_id, newModuleId: r.new_id, finishedAt: r.finished_at }));
}

/** The restore that made module `moduleId` (it is a copy), or null. */
export function restoredFrom(db: Database.Database, moduleId: string): ModuleRestorePair | null {
  return moduleRestorePairs(db).find((p) => p.newModuleId === moduleId) ?? null;
}

/** The copies restores made of module `moduleId`, newest first. */
export function restoredAs(db: Database.Database, moduleId: string): ModuleRestorePair[] {
  return moduleRestorePairs(db).filter((p) => p.oldModuleId === moduleId);
}

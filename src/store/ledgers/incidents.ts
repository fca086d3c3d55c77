// Tripwire incidents (migration 016): recorded by the pass that found the damage, read by the
// pinned undo (`wbsync rollback --incident N`), /healthz, /metrics and the console, and marked
// recovered by the first pass after a restore or rollback of the module completed.

import type Database from 'better-sqlite3';
import type { Actor } from '../read/change-counts.js';

export type IncidentKind = 'mass-change' | 'module-deleted' | 'workspace-lost';

export interface Incident {
  id: number;
  kind: IncidentKind;
  workspaceId: string;
  moduleId: string | null;
  moduleName: string;
  snapshotBefore: number;
  snapshotDamage: number;
  summary: string;
  what: string[];
  actors: Actor[];
  columns: string[];
  kinds: string[];
  damageFrom: string | null;
  damageTo: string | null;
  feedRows: number;
  /** The undo's argument vector (null: nothing to undo, e.g. a held loss). */
  undo: string[] | null;
  status: 'open' | 'recovered';
  openedAt: string;
  recoveredAt: string | null;
  recoveredByRun: number | null;
}

export type NewIncident = Omit<Incident, 'id' | 'undo' | 'status' | 'openedAt' | 'recoveredAt' | 'recoveredByRun'>;

interface Row {
  id: number;
  kind: IncidentKind;
  workspace_id: string;
  module_id: string | null;
  module_name: string;
  snapshot_before: number;
  snapshot_damage: number;
  summary: string;
  what: string;
  actors: string;
  columns: string;
  kinds: string;
  damage_from: string | null;
  damage_to: string | null;
  feed_rows: number;
  undo: string;
  status: 'open' | 'recovered';
  opened_at: string;
  recovered_at: string | null;
  recovered_by_run: number | null;
}

const json = <T>(text: string, fallback: T): T => {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
};

function fromRow(r: Row): Incident {
  return {
    id: r.id,
    kind: r.kind,
    workspaceId: r.workspace_id,
    moduleId: r.module_id,
    moduleName: r.module_name,
    snapshotBefore: r.snapshot_before,
    snapshotDamage: r.snapshot_damage,
    summary: r.summary,
    what: json<string[]>(r.what, []),
    actors: json<Actor[]>(r.actors, []),
    columns: json<string[]>(r.columns, []),
    kinds: json<string[]>(r.kinds, []),
    damageFrom: r.damage_from,
    damageTo: r.damage_to,
    feedRows: r.feed_rows,
    undo: json<string[] | null>(r.undo, null),
    status: r.status,
    openedAt: r.opened_at,
    recoveredAt: r.recovered_at,
    recoveredByRun: r.recovered_by_run,
  };
}

/** Records an incident; `undoOf` builds its undo once its id is known. Returns it. */
export function recordIncident(db: Database.Database, i: NewIncident, undoOf: (id: number) => string[] | null, now: Date): Incident {
  return db.transaction(() => {
    const { lastInsertRowid } = db
      .prepare(
        `INSERT INTO incidents (kind, workspace_id, module_id, module_name, snapshot_before, snapshot_damage, summary, what, actors, columns, kinds, damage_from, damage_to, feed_rows, undo, status, opened_at)
         VALUES (@kind, @workspaceId, @moduleId, @moduleName, @snapshotBefore, @snapshotDamage, @summary, @what, @actors, @columns, @kinds, @damageFrom, @damageTo, @feedRows, 'null', 'open', @openedAt)`,
      )
      .run({ ...i, what: JSON.stringify(i.what), actors: JSON.stringify(i.actors), columns: JSON.stringify(i.columns), kinds: JSON.stringify(i.kinds), openedAt: now.toISOString() });
    const id = Number(lastInsertRowid);
    db.prepare('UPDATE incidents SET undo = ? WHERE id = ?').run(JSON.stringify(undoOf(id)), id);
    return getIncident(db, id)!;
  })();
}

export function getIncident(db: Database.Database, id: number): Incident | null {
  const r = db.prepare('SELECT * FROM incidents WHERE id = ?').get(id) as Row | undefined;
  return r ? fromRow(r) : null;
}

export function listIncidents(db: Database.Database, status?: 'open' | 'recovered', limit = 100): Incident[] {
  const rows = (status ? db.prepare('SELECT * FROM incidents WHERE status = ? ORDER BY id DESC LIMIT ?').all(status, limit) : db.prepare('SELECT * FROM incidents ORDER BY id DESC LIMIT ?').all(limit)) as Row[];
  return rows.map(fromRow);
}

/** An open incident of this kind for this workspace/module (a held loss is alerted once). */
export function openIncidentFor(db: Database.Database, kind: IncidentKind, workspaceId: string, moduleId: string | null): Incident | null {
  const r = db.prepare(`SELECT * FROM incidents WHERE status = 'open' AND kind = ? AND workspace_id = ? AND module_id IS ? ORDER BY id DESC LIMIT 1`).get(kind, workspaceId, moduleId) as Row | undefined;
  return r ? fromRow(r) : null;
}

/**
 * Open incidents a completed restore or rollback of their module answered (started after the
 * incident was opened), each with that run: the caller marks them recovered.
 */
export function recoveriesDue(db: Database.Database): { incident: Incident; runId: number; runKind: string; finishedAt: string }[] {
  const out: { incident: Incident; runId: number; runKind: string; finishedAt: string }[] = [];
  const runs = db.prepare(`SELECT id, kind, source_ids, finished_at FROM restore_runs WHERE status = 'complete' AND started_at >= ? ORDER BY id`);
  for (const incident of listIncidents(db, 'open', 1000)) {
    if (!incident.moduleId) continue;
    for (const r of runs.all(incident.openedAt) as { id: number; kind: string; source_ids: string; finished_at: string }[]) {
      if (json<unknown[]>(r.source_ids, []).includes(incident.moduleId)) {
        out.push({ incident, runId: r.id, runKind: r.kind, finishedAt: r.finished_at });
        break;
      }
    }
  }
  return out;
}

/** Marks incidents recovered; a loss held and then seen again marks its workspace's too. */
export function markRecovered(db: Database.Database, id: number, runId: number | null, now: Date): void {
  db.prepare(`UPDATE incidents SET status = 'recovered', recovered_at = ?, recovered_by_run = ? WHERE id = ? AND status = 'open'`).run(now.toISOString(), runId, id);
}

// wbsync's own writes, from its restore journal: the ids every restore, rollback and workspace
// restore wrote to (the targets of its steps and the objects it created) in a time window. The
// tripwire never counts them as damage — a recovery is not a mass change, and its feed rows carry
// the key's owner, who did not do it.

import type Database from 'better-sqlite3';

export interface OwnWrites {
  /** Ids written or created by wbsync (cells, records, columns, collections, amendments, modules). */
  ids: Set<string>;
  /** The runs, with when they wrote. */
  runs: { id: number; kind: string; sourceIds: string[]; startedAt: string; finishedAt: string | null; status: string }[];
}

/** Runs that wrote anything between `fromIso` and `toIso` (any status: a failed run wrote too). */
export function ownWrites(db: Database.Database, fromIso: string, toIso: string): OwnWrites {
  const runs = (
    db
      .prepare(`SELECT id, kind, source_ids, started_at, finished_at, status FROM restore_runs WHERE started_at <= @to AND (finished_at IS NULL OR finished_at >= @from)`)
      .all({ from: fromIso, to: toIso }) as { id: number; kind: string; source_ids: string; started_at: string; finished_at: string | null; status: string }[]
  ).map((r) => ({ id: r.id, kind: r.kind, sourceIds: parseIds(r.source_ids), startedAt: r.started_at, finishedAt: r.finished_at, status: r.status }));
  const ids = new Set<string>();
  const steps = db.prepare('SELECT step_key FROM restore_steps WHERE run_id = ?').pluck();
  const created = db.prepare('SELECT new_id FROM restore_ids WHERE run_id = ? AND new_id IS NOT NULL').pluck();
  for (const r of runs) {
    for (const key of steps.all(r.id) as string[]) {
      const at = key.indexOf(':');
      if (at > 0) ids.add(key.slice(at + 1));
    }
    for (const id of created.all(r.id) as string[]) ids.add(id);
  }
  return { ids, runs };
}

function parseIds(text: string): string[] {
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/** Ids wbsync brought back elsewhere (the sources of its complete restore runs): their loss is known. */
export function restoredSources(db: Database.Database, kind: 'workspace' | 'module'): Set<string> {
  const out = new Set<string>();
  for (const text of db.prepare(`SELECT source_ids FROM restore_runs WHERE status = 'complete' AND kind = ?`).pluck().all(kind) as string[]) for (const id of parseIds(text)) out.add(id);
  return out;
}

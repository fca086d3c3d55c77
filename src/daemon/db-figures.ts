// Figures for /metrics read from the database: rows per reporting view, the newest activity row,
// the stored cursors, the part read in full least recently. Read between passes only (an apply in flight yields mid-transaction, and a
// read then would see half a batch), and cached until the next pass ends.

import type { Store } from '../store/port.js';
import { commandLine } from '../domain/shell-command.js';
import { listIncidents } from '../store/ledgers/index.js';
import { REPORTING_VIEWS, newestActivityAt, viewRowCounts, workspaceIds as readWorkspaceIds } from '../store/read/index.js';
import { activeHolds } from '../store/retention/index.js';

/** A tripwire incident still open (no restore or rollback of its module since). */
export interface OpenTripwire {
  incident: number;
  kind: string;
  workspaceId: string;
  moduleId: string | null;
  summary: string;
  /** The undo, one quoted line (null: nothing to undo). */
  undo: string | null;
  snapshot: number;
  pass: number;
  openedAt: string;
}

export interface DbFigures {
  rows: Record<string, number>;
  newestActivityMs: number | null;
  /** workspace id -> the time its cursor points at */
  cursorsMs: Record<string, number>;
  latestComplete: { id: number; finishedAtMs: number | null } | null;
  /** The part read in full least recently (freshness), among the workspaces in scope. */
  oldestVerified: { workspaceId: string; kind: 'workspace' | 'module'; id: string; atMs: number } | null;
  /** Snapshots a tripwire holds from pruning now. */
  heldSnapshots: number;
  openTripwires: OpenTripwire[];
}

export function openTripwires(store: Store): OpenTripwire[] {
  return listIncidents(store.db, 'open', 50).map((i) => ({
    incident: i.id,
    kind: i.kind,
    workspaceId: i.workspaceId,
    moduleId: i.moduleId,
    summary: i.summary,
    undo: i.undo ? commandLine(i.undo) : null,
    snapshot: i.snapshotBefore,
    pass: i.snapshotDamage,
    openedAt: i.openedAt,
  }));
}

function parseTime(iso: string | null | undefined): number | null {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isFinite(t) ? t : null;
}

/** @param inScope workspaces the daemon mirrors (others are left as they were, and age) */
export function readDbFigures(store: Store, inScope: (workspaceId: string) => boolean = () => true): DbFigures {
  const rows = viewRowCounts(store.db, REPORTING_VIEWS);
  const newest = newestActivityAt(store.db);
  const cursorsMs: Record<string, number> = {};
  const workspaceIds = readWorkspaceIds(store.db);
  for (const id of workspaceIds) {
    const t = parseTime(store.getCursor(id)?.cursor);
    if (t !== null) cursorsMs[id] = t;
  }
  let oldestVerified: DbFigures['oldestVerified'] = null;
  for (const id of workspaceIds.filter(inScope)) {
    for (const p of store.verifiedParts(id)) {
      const at = parseTime(p.verifiedAt);
      if (at !== null && (oldestVerified === null || at < oldestVerified.atMs)) oldestVerified = { workspaceId: p.workspaceId, kind: p.kind, id: p.id, atMs: at };
    }
  }
  const latestId = store.latestCompleteSnapshot();
  const latest = latestId === null ? null : store.getSnapshot(latestId);
  return {
    rows,
    newestActivityMs: parseTime(newest),
    cursorsMs,
    latestComplete: latest ? { id: latest.id, finishedAtMs: parseTime(latest.finishedAt) } : null,
    oldestVerified,
    heldSnapshots: activeHolds(store.db, new Date()).length,
    openTripwires: openTripwires(store),
  };
}

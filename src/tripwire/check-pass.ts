// The tripwire step every pass runs, whoever runs it (sync, sync --full, the daemon): compare the
// pass with the complete snapshot before it, record each mass change as an incident (the snapshot
// before is held from pruning; the undo pinned to the incident), record a loss the pass held (a
// workspace whose everything vanished at once), and mark incidents a restore or rollback answered
// as recovered. Returns what to announce; the caller logs and alerts.

import { commandLine } from '../domain/shell-command.js';
import { holdSnapshot } from '../store/retention/index.js';
import { getIncident, markRecovered, openIncidentFor, recordIncident, recoveriesDue, type Incident } from '../store/ledgers/index.js';
import { completeSnapshotBefore } from '../store/read/index.js';
import type { Store } from '../store/port.js';
import type { HeldLoss, PassResult } from '../sync/pass.js';
import { evaluateTripwire, undoArgv, type Finding, type TripwireThresholds } from './evaluate.js';

export interface Tripped {
  incident: Incident;
  /** The undo as one quoted line, and as its words (null: nothing to undo). */
  undo: string | null;
  undoArgv: string[] | null;
}

export interface Recovery {
  incident: Incident;
  runId: number | null;
  how: string;
}

export interface TripwireOutcome {
  tripped: Tripped[];
  recovered: Recovery[];
  /** The snapshot compared against (null: no complete snapshot before this pass). */
  before: number | null;
}

const tripped = (incident: Incident): Tripped => ({ incident, undo: incident.undo ? commandLine(incident.undo) : null, undoArgv: incident.undo });

function lossFinding(l: HeldLoss, before: number, after: number): Finding {
  return {
    kind: 'workspace-lost',
    workspaceId: l.workspaceId,
    moduleId: null,
    moduleName: '',
    summary: `workspace ${l.name} ${l.reason}: everything it held (${l.modules} modules, ${l.records} records) is kept as of snapshot ${before}, nothing marked gone`,
    what: [`${l.modules} modules and ${l.records} records vanished at once (${l.reason})`],
    by: [],
    snapshot: before,
    damageSnapshot: after,
    columns: [],
    kinds: [],
    damageFrom: null,
    damageTo: null,
    feedRows: 0,
  };
}

export function checkPass(store: Store, r: PassResult, t: TripwireThresholds & { enabled: boolean }, now: Date): TripwireOutcome {
  const db = store.db;
  const out: TripwireOutcome = { tripped: [], recovered: [], before: null };
  if (r.status === 'failed') return out;
  for (const due of recoveriesDue(db)) {
    markRecovered(db, due.incident.id, due.runId, now);
    out.recovered.push({ incident: getIncident(db, due.incident.id)!, runId: due.runId, how: `${due.runKind === 'rollback' ? 'rollback' : 'restore'} run ${due.runId} finished ${due.finishedAt}` });
  }
  const held = new Set((r.held ?? []).map((l) => l.workspaceId));
  // a held loss that the service answers for again (the access came back) is over
  for (const w of r.workspaces) {
    const open = held.has(w.workspaceId) ? null : openIncidentFor(db, 'workspace-lost', w.workspaceId, null);
    if (open) {
      markRecovered(db, open.id, null, now);
      out.recovered.push({ incident: getIncident(db, open.id)!, runId: null, how: 'the service lists it again' });
    }
  }
  const before = completeSnapshotBefore(db, r.snapshot);
  out.before = before;
  if (before === null) return out;
  const findings: Finding[] = [];
  // a held loss is evaluated whether or not the thresholds are enabled: it is never recorded as truth
  for (const l of r.held ?? []) if (!openIncidentFor(db, 'workspace-lost', l.workspaceId, null)) findings.push(lossFinding(l, before, r.snapshot));
  if (t.enabled) findings.push(...evaluateTripwire(store.changeCounts(before, r.snapshot), t, before, r.snapshot));
  for (const f of findings) {
    holdSnapshot(db, before, `tripwire: ${f.summary}`.slice(0, 500), now);
    const { kind, workspaceId, moduleId, moduleName, summary, what, by, columns, kinds, damageFrom, damageTo, feedRows } = f;
    const incident = recordIncident(
      db,
      { kind, workspaceId, moduleId, moduleName, snapshotBefore: f.snapshot, snapshotDamage: f.damageSnapshot, summary, what, actors: by, columns, kinds, damageFrom, damageTo, feedRows },
      (id) => undoArgv(f, id),
      now,
    );
    out.tripped.push(tripped(incident));
  }
  return out;
}

/** The alert details of a tripped incident (the webhook payload's `details`). */
export function alertDetails(t: Tripped): Record<string, unknown> {
  const i = t.incident;
  return {
    incident: i.id,
    kind: i.kind,
    what: i.what,
    by: i.actors,
    snapshot: i.snapshotBefore,
    pass: i.snapshotDamage,
    held: true,
    ...(i.damageFrom ? { window: { from: i.damageFrom, to: i.damageTo, feedRows: i.feedRows } } : {}),
    ...(i.columns.length ? { columns: i.columns } : {}),
    ...(i.kind === 'workspace-lost'
      ? { hint: `if the key lost access, give it back and the next pass carries on; if the workspace was deleted on purpose, ${commandLine(['wbsync', 'sync', '--accept-loss'])} records it` }
      : {}),
  };
}

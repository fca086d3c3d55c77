// The tripwire step with its announcements, for every pass whoever runs it: the daemon (through
// its notifier, in the background) and `wbsync sync` (the same notifier, drained before exit). Log
// lines and alerts carry the undo as one quoted line and as its argument vector; a recovery is
// reported as such, never as a second tripwire.

import type { Notifier } from '../alerts/notifier.js';
import type { Logger } from '../config/logger.js';
import type { Store } from '../store/port.js';
import type { PassResult } from '../sync/pass.js';
import { alertDetails, checkPass, type TripwireOutcome } from './check-pass.js';
import type { TripwireThresholds } from './evaluate.js';

export interface AnnounceDeps {
  store: Store;
  config: TripwireThresholds & { enabled: boolean };
  logger: Pick<Logger, 'warn' | 'info'>;
  notifier: Pick<Notifier, 'notify'>;
  now: Date;
  /** Each event, for metrics: the incident's kind (or 'recovered') and its module ('' for none). */
  onEvent?: (kind: string, moduleId: string) => void;
}

export function announceTripwire(deps: AnnounceDeps, r: PassResult): TripwireOutcome {
  const { logger, notifier } = deps;
  const out = checkPass(deps.store, r, deps.config, deps.now);
  for (const rec of out.recovered) {
    const i = rec.incident;
    logger.info({ incident: i.id, moduleId: i.moduleId, how: rec.how }, 'tripwire: recovered');
    deps.onEvent?.('recovered', i.moduleId ?? '');
    notifier.notify({
      event: 'tripwire_recovered',
      summary: `recovered: incident ${i.id} (${i.summary})`.slice(0, 500),
      details: { incident: i.id, kind: i.kind, how: rec.how, ...(rec.runId !== null ? { run: rec.runId } : {}), snapshot: i.snapshotBefore },
      workspaceId: i.workspaceId,
      ...(i.moduleId ? { moduleId: i.moduleId } : {}),
    });
  }
  for (const t of out.tripped) {
    const i = t.incident;
    logger.warn({ incident: i.id, kind: i.kind, moduleId: i.moduleId, workspaceId: i.workspaceId, snapshot: i.snapshotBefore, undo: t.undo, what: i.what }, i.kind === 'workspace-lost' ? 'tripwire: loss held' : 'tripwire: mass change');
    deps.onEvent?.(i.kind, i.moduleId ?? '');
    notifier.notify({
      event: 'tripwire',
      summary: i.summary,
      details: alertDetails(t),
      workspaceId: i.workspaceId,
      ...(i.moduleId ? { moduleId: i.moduleId } : {}),
      ...(t.undo ? { undo: t.undo, undoArgv: t.undoArgv! } : {}),
    });
  }
  return out;
}

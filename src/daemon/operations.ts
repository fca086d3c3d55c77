// What the daemon does around each pass for months unattended: alerts that reach a person (fire
// once per episode), the tripwire for mass changes (hold the snapshot before, name the undo), and
// pruning after a full pass when a retention policy is set. Each step is guarded: none of them may
// ever fail a pass or stop the daemon.

import { AlertEpisodes, sqliteEpisodes } from '../alerts/episodes.js';
import type { Notifier } from '../alerts/notifier.js';
import type { Config } from '../config/schema.js';
import type { Logger } from '../config/logger.js';
import { holdSnapshot } from '../retention/holds.js';
import { isEmptyPolicy } from '../retention/policy.js';
import { prune } from '../retention/prune.js';
import type { Store } from '../store/port.js';
import type { PassResult } from '../sync/pass.js';
import { evaluateTripwire } from '../tripwire/evaluate.js';

export interface PassHooks {
  passStarted(): void;
  passSucceeded(r: PassResult): void;
  passFailed(code: string, message: string): void;
  /** After every pass, with the freshness problem if the bound is exceeded. */
  afterPass(freshnessProblem: string | null): void;
}

export interface OperationsDeps {
  store: Store;
  config: Pick<Config, 'retention' | 'tripwire' | 'alerts'>;
  logger: Logger;
  notifier: Notifier;
  now: () => Date;
}

export function createOperations(deps: OperationsDeps): PassHooks {
  const { store, config, logger, notifier } = deps;
  const at = (): string => deps.now().toISOString();
  const episodes = new AlertEpisodes(sqliteEpisodes(store.db, at), config.alerts.afterFailures);
  const guard = (what: string, fn: () => void): void => {
    try {
      fn();
    } catch (e) {
      logger.warn({ step: what, err: e instanceof Error ? e.message : String(e) }, 'unattended step failed');
    }
  };
  const announce = (list: ReturnType<AlertEpisodes['passSucceeded']>): void => {
    for (const a of list) {
      logger.warn({ event: a.event, summary: a.summary }, 'alert');
      notifier.notify(a);
    }
  };

  const tripwire = (r: PassResult): void => {
    if (!config.tripwire.enabled || r.status === 'failed') return;
    const before = store.db
      .prepare(`SELECT max(id) FROM snapshot_runs WHERE status = 'complete' AND id < ? AND id NOT IN (SELECT snapshot_id FROM snapshot_forgets)`)
      .pluck()
      .get(r.snapshot) as number | null;
    if (before === null) return;
    for (const f of evaluateTripwire(store.changeCounts(before, r.snapshot), config.tripwire, before)) {
      holdSnapshot(store.db, before, `tripwire: ${f.summary}`.slice(0, 500), deps.now());
      logger.warn({ moduleId: f.moduleId, snapshot: before, undo: f.undo, what: f.what }, 'tripwire: mass change');
      notifier.notify({ event: 'tripwire', summary: f.summary, details: { what: f.what, by: f.by, snapshot: before, held: true, pass: r.snapshot }, workspaceId: f.workspaceId, moduleId: f.moduleId, undo: f.undo });
    }
  };

  const pruneAfterFull = (r: PassResult): void => {
    const { activityDays, ...policy } = config.retention;
    if (r.kind !== 'full' || r.status === 'failed' || isEmptyPolicy(policy)) return;
    const res = prune(store.db, { policy, ...(activityDays !== undefined ? { activityDays } : {}), now: deps.now() });
    logger.info({ forgotten: res.forget.map((f) => f.id), rows: res.rows, bytesFreed: res.bytesFreed, ...(res.compactNote ? { note: res.compactNote } : {}) }, 'pruned');
  };

  return {
    passStarted: () => notifier.ping('start'),
    passSucceeded(r) {
      notifier.ping('success');
      guard('alerts', () => announce(episodes.passSucceeded(at())));
      guard('tripwire', () => tripwire(r));
      guard('prune', () => pruneAfterFull(r));
    },
    passFailed(code, message) {
      notifier.ping('fail', `${code}: ${message}`.slice(0, 1000));
      guard('alerts', () => announce(episodes.passFailed(code, message, at())));
    },
    afterPass(problem) {
      guard('alerts', () => announce(episodes.freshness(problem, at())));
    },
  };
}

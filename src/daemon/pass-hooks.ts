// What the daemon does around each pass for months unattended: alerts that reach a person (fire
// once per episode), the tripwire for mass changes (hold the snapshot before, name the undo),
// pruning after a full pass when a retention policy is set, and finishing an erasure left running.
// Each step is guarded: none of them may ever fail a pass or stop the daemon.

import { AlertEpisodes, sqliteEpisodes } from '../alerts/episodes.js';
import type { Notifier } from '../alerts/notifier.js';
import type { Config } from '../config/schema.js';
import type { Logger } from '../config/logger.js';
import { objectStoreOf } from '../offsite/object-store.js';
import { pruneCopies, pushCopy } from '../offsite/offsite.js';
import { isEmptyPolicy } from '../store/retention/index.js';
import { prune } from '../store/retention/index.js';
import type { Store } from '../store/port.js';
import type { PassResult } from '../sync/pass.js';
import { announceTripwire } from '../tripwire/announce.js';
import { finishPendingErasures } from '../store/erasure/index.js';

export interface PassHooks {
  passStarted(): void;
  passSucceeded(r: PassResult): void;
  passFailed(code: string, message: string): void;
  /** After every pass, with the freshness problem if the bound is exceeded. */
  afterPass(freshnessProblem: string | null): void;
  /** Resolves when no offsite push is in flight (shutdown). */
  idle(): Promise<void>;
}

export interface PassHooksDeps {
  store: Store;
  config: Pick<Config, 'retention' | 'tripwire' | 'alerts' | 'offsite'>;
  logger: Logger;
  notifier: Notifier;
  now: () => Date;
  /** Each offsite push's outcome (metrics). */
  onOffsite?: (ok: boolean) => void;
  /** Each tripwire event (metrics): kind 'mass-change', 'module-deleted', 'workspace-lost' or 'recovered'. */
  onTripwire?: (kind: string, moduleId: string) => void;
}

export function createPassHooks(deps: PassHooksDeps): PassHooks {
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

  // the same step `wbsync sync` runs (tripwire/check-pass.ts), announced through the daemon's notifier
  const tripwire = (r: PassResult): void => {
    announceTripwire({ store, config: config.tripwire, logger, notifier, now: deps.now(), ...(deps.onTripwire ? { onEvent: deps.onTripwire } : {}) }, r);
  };

  const pruneAfterFull = (r: PassResult): void => {
    const { activityDays, ...policy } = config.retention;
    if (r.kind !== 'full' || r.status === 'failed' || isEmptyPolicy(policy)) return;
    const res = prune(store.db, { policy, ...(activityDays !== undefined ? { activityDays } : {}), now: deps.now() });
    logger.info({ forgotten: res.forget.map((f) => f.id), rows: res.rows, bytesFreed: res.bytesFreed, ...(res.compactNote ? { note: res.compactNote } : {}) }, 'pruned');
  };

  // `wbsync erase` beside a running daemon rewrites the history but cannot rewrite the file (the
  // daemon holds the lock): the daemon finishes it here, between passes, before any offsite push
  const finishErasures = (r: PassResult): void => {
    if (r.kind !== 'full' || r.status === 'failed') return;
    const res = finishPendingErasures(store.db, deps.now);
    if (res) logger.info({ finished: res.resumed, complete: res.complete ?? false, compactMs: Math.round(res.timings.compactMs), ...(res.note ? { note: res.note } : {}) }, 'erasure finished');
  };

  // one push at a time, in the background: a pass never waits for the upload
  let pushing: Promise<void> | null = null;
  const pushAfterFull = (r: PassResult): void => {
    const o = config.offsite;
    if (r.kind !== 'full' || r.status === 'failed' || !o.bucket || !o.afterFullPass) return;
    if (pushing) {
      logger.info({ snapshot: r.snapshot }, 'offsite push still running: this full pass is not copied');
      return;
    }
    pushing = (async () => {
      const objects = objectStoreOf(o);
      try {
        const m = await pushCopy(store, objects, { prefix: o.prefix, recipients: o.recipients }, deps.now());
        const forgotten = await pruneCopies(objects, o.prefix, o.retention, deps.now());
        logger.info({ snapshot: m.snapshot, bytes: m.bytes, sha256: m.sha256, forgotten }, 'offsite copy pushed');
        deps.onOffsite?.(true);
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        logger.warn({ snapshot: r.snapshot, err: message }, 'offsite push failed');
        deps.onOffsite?.(false);
        notifier.notify({ event: 'offsite_failed', summary: `offsite copy of snapshot ${r.snapshot} failed: ${message}`.slice(0, 500), details: { snapshot: r.snapshot, where: objects.where, hint: "run 'wbsync offsite push' to retry; 'wbsync offsite verify' checks the copies there" } });
      } finally {
        objects.close();
        pushing = null;
      }
    })();
  };

  return {
    idle: async () => {
      await pushing;
    },
    passStarted: () => notifier.ping('start'),
    passSucceeded(r) {
      notifier.ping('success');
      guard('alerts', () => announce(episodes.passSucceeded(at())));
      guard('tripwire', () => tripwire(r));
      guard('prune', () => pruneAfterFull(r));
      guard('erasure', () => finishErasures(r));
      guard('offsite', () => pushAfterFull(r));
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

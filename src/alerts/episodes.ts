// Fire-once bookkeeping: which alert episodes are open, so an event fires once per episode — not
// once per pass — and `recovered` follows a failure that was announced. Kept in the database
// (alert_state), so a restarted daemon does not announce the same outage again.

import type { AlertEventName } from '../config/schema.js';
import { forgetAlertState, loadAlertState, saveAlertState } from '../store/ledgers/index.js';

export interface EpisodeStore {
  load(key: string): EpisodeState | null;
  save(key: string, state: EpisodeState | null): void;
}

export interface EpisodeState {
  since: string;
  count: number;
  announced: boolean;
  last: string;
}

export interface Announcement {
  event: AlertEventName;
  summary: string;
  details: Record<string, unknown>;
}

export class AlertEpisodes {
  constructor(
    private readonly store: EpisodeStore,
    private readonly afterFailures: number,
  ) {}

  /** A pass failed: auth failures are their own episode, announced at once; others after N in a row. */
  passFailed(code: string, message: string, at: string): Announcement[] {
    const key = code === 'auth' ? 'auth_failed' : 'pass_failed';
    const prev = this.store.load(key);
    const cur: EpisodeState = { since: prev?.since ?? at, count: (prev?.count ?? 0) + 1, announced: prev?.announced ?? false, last: message };
    const out: Announcement[] = [];
    const due = key === 'auth_failed' ? 1 : this.afterFailures;
    if (!cur.announced && cur.count >= due) {
      cur.announced = true;
      out.push(
        key === 'auth_failed'
          ? { event: 'auth_failed', summary: `authentication failed: ${message}`, details: { since: cur.since, hint: 'the key was revoked or rotated: put the new one in WBSYNC_API_KEY or apiKeyFile and restart the daemon' } }
          : { event: 'pass_failed', summary: `${cur.count} passes in a row failed: ${message}`, details: { since: cur.since, consecutiveFailures: cur.count } },
      );
    }
    this.store.save(key, cur);
    return out;
  }

  /** A pass succeeded: open failure episodes close; an announced one is followed by `recovered`. */
  passSucceeded(at: string): Announcement[] {
    const out: Announcement[] = [];
    for (const key of ['pass_failed', 'auth_failed'] as const) {
      const prev = this.store.load(key);
      if (!prev) continue;
      if (prev.announced) out.push({ event: 'recovered', summary: `passes succeed again after ${prev.count} failed (${key === 'auth_failed' ? 'authentication' : 'pass'} failures since ${prev.since})`, details: { since: prev.since, failures: prev.count, recoveredAt: at, from: key } });
      this.store.save(key, null);
    }
    return out;
  }

  /** After each pass: the freshness bound exceeded (a reason) or met (null). */
  freshness(problem: string | null, at: string): Announcement[] {
    const prev = this.store.load('stale');
    if (problem === null) {
      if (prev) this.store.save('stale', null);
      return [];
    }
    if (prev?.announced) return [];
    this.store.save('stale', { since: prev?.since ?? at, count: (prev?.count ?? 0) + 1, announced: true, last: problem });
    return [{ event: 'stale', summary: problem, details: { since: prev?.since ?? at, hint: "passes are not reading every part within freshness.maxStalenessMinutes: see /healthz, and 'wbsync sync --full'" } }];
  }
}

/** The episode store over the alert_state table. */
export function sqliteEpisodes(db: import('better-sqlite3').Database, now: () => string): EpisodeStore {
  return {
    load(key) {
      const raw = loadAlertState(db, key);
      return raw ? (JSON.parse(raw) as EpisodeState) : null;
    },
    save(key, state) {
      if (state === null) forgetAlertState(db, key);
      else saveAlertState(db, key, JSON.stringify(state), now());
    },
  };
}

// The daemon's health, as /healthz reports it: healthy while the last pass succeeded and is recent
// (within `staleAfterMs`, three incremental intervals) and every part of the mirror was read in full
// within the freshness window, else unhealthy with a reason. A refused
// key ('auth') and an outage ('unreachable') are told apart: only the first needs a new key.

export interface PassSummary {
  snapshot: number | null;
  kind: 'full' | 'incremental';
  status: 'complete' | 'failed';
  counts: Record<string, number>;
  requests: number;
  durationMs: number;
  finishedAt: string;
  /** Parts (workspaces, modules) that failed inside a completed pass. */
  failures: number;
}

export interface HealthError {
  code: string;
  message: string;
  at: string;
}

export interface RunningPassInfo {
  kind: 'full' | 'incremental';
  since: string;
  lastProgress: string;
}

/** An open tripwire as /healthz shows it (daemon/db-figures.ts reads them after each pass). */
export interface HealthTripwire {
  incident: number;
  kind: string;
  moduleId: string | null;
  summary: string;
  undo: string | null;
  openedAt: string;
}

export interface HealthBody {
  /** 'tripwire': healthy (HTTP 200: the backup works, a liveness probe must not restart it) but a
   * tripwire is open — someone should look, and run its undo. */
  status: 'ok' | 'tripwire' | 'unhealthy' | 'starting';
  reason: string | null;
  /** Open tripwires, newest first (empty when none). */
  tripwires: HealthTripwire[];
  lastSuccess: string | null;
  lastError: HealthError | null;
  lastPass: PassSummary | null;
  running: RunningPassInfo | null;
}

export interface HealthReport {
  httpStatus: 200 | 503;
  body: HealthBody;
}

export const REASON_AUTH = 'authentication failed';
export const REASON_OUTAGE = 'service unreachable';

/** What a failed pass means for health. */
export function failureReason(code: string, message: string): string {
  if (code === 'auth') return REASON_AUTH;
  if (code === 'unreachable') return REASON_OUTAGE;
  return `last pass failed: ${message}`;
}

export class HealthState {
  private lastPass: PassSummary | null = null;
  private lastSuccessMs: number | null = null;
  private lastError: HealthError | null = null;
  /** Why the last pass failed; null after a success. */
  private failure: string | null = null;
  private running: { kind: 'full' | 'incremental'; sinceMs: number; progressMs: number } | null = null;
  private oldestVerified: { label: string; atMs: number } | null = null;
  private tripwires: HealthTripwire[] = [];

  /**
   * @param staleAfterMs the last success (or progress) may be this old
   * @param maxStalenessMs freshness.maxStalenessMinutes: every part must have been read in full within it
   */
  constructor(
    private readonly staleAfterMs: number,
    private readonly maxStalenessMs: number = Number.POSITIVE_INFINITY,
  ) {}

  /** From the database after each pass: the part read in full least recently. */
  setOldestVerified(oldest: { label: string; atMs: number } | null): void {
    this.oldestVerified = oldest;
  }

  /** From the database after each pass: the tripwires still open. */
  setOpenTripwires(list: readonly HealthTripwire[]): void {
    this.tripwires = list.map((t) => ({ incident: t.incident, kind: t.kind, moduleId: t.moduleId, summary: t.summary, undo: t.undo, openedAt: t.openedAt }));
  }

  /** From the database at start: the latest complete snapshot's finish time, if any. */
  seedLastSuccess(finishedAtMs: number): void {
    this.lastSuccessMs = finishedAtMs;
  }

  passStarted(kind: 'full' | 'incremental', atMs: number): void {
    this.running = { kind, sinceMs: atMs, progressMs: atMs };
  }

  /** A long pass that keeps making progress is not stale: a full pass may outlast three
   * incremental intervals, and a liveness probe must not kill it half-way, every time. */
  passProgress(atMs: number): void {
    if (this.running) this.running.progressMs = atMs;
  }

  /** Stopped by a signal: says nothing about health. */
  passInterrupted(): void {
    this.running = null;
  }

  /** Returns `recoveredFrom` when this success ends an unhealthy spell (for the "recovered" log). */
  passSucceeded(pass: PassSummary, atMs: number): { recoveredFrom: string | null } {
    const recoveredFrom = this.failure;
    this.running = null;
    this.lastPass = pass;
    this.lastSuccessMs = atMs;
    this.failure = null;
    return { recoveredFrom };
  }

  /** Returns whether the reason changed (a new spell, worth a log line of its own). */
  passFailed(err: { code: string; message: string }, atMs: number, pass: PassSummary | null): { reason: string; changed: boolean } {
    const reason = failureReason(err.code, err.message);
    const changed = reason !== this.failure;
    this.running = null;
    this.failure = reason;
    this.lastError = { code: err.code, message: err.message, at: new Date(atMs).toISOString() };
    if (pass) this.lastPass = pass;
    return { reason, changed };
  }

  /** The freshness bound exceeded (which part, how stale), or null. */
  freshnessProblem(nowMs: number): string | null {
    if (!this.oldestVerified || nowMs - this.oldestVerified.atMs <= this.maxStalenessMs) return null;
    const minutes = (ms: number): string => `${Math.round(ms / 6_000) / 10} min`;
    return `mirror staler than freshness.maxStalenessMinutes (${minutes(this.maxStalenessMs)}): ${this.oldestVerified.label} was last read in full ${minutes(nowMs - this.oldestVerified.atMs)} ago`;
  }

  healthy(nowMs: number): boolean {
    return this.report(nowMs).httpStatus === 200;
  }

  report(nowMs: number): HealthReport {
    const base = {
      tripwires: this.tripwires,
      lastSuccess: this.lastSuccessMs === null ? null : new Date(this.lastSuccessMs).toISOString(),
      lastError: this.lastError,
      lastPass: this.lastPass,
      running: this.running && {
        kind: this.running.kind,
        since: new Date(this.running.sinceMs).toISOString(),
        lastProgress: new Date(this.running.progressMs).toISOString(),
      },
    };
    const unhealthy = (status: 'unhealthy' | 'starting', reason: string): HealthReport => ({ httpStatus: 503, body: { status, reason, ...base } });
    if (this.failure !== null) return unhealthy('unhealthy', this.failure);
    if (this.lastSuccessMs === null) return unhealthy('starting', 'no successful pass yet');
    const age = nowMs - Math.max(this.lastSuccessMs, this.running?.progressMs ?? 0);
    if (age > this.staleAfterMs) {
      return unhealthy('unhealthy', `last success (or progress of the pass running) is ${Math.round(age / 1000)} s old (limit ${Math.round(this.staleAfterMs / 1000)} s: three incremental intervals)`);
    }
    const stale = this.freshnessProblem(nowMs);
    if (stale) return unhealthy('unhealthy', stale);
    if (this.tripwires.length) {
      const [t] = this.tripwires;
      const more = this.tripwires.length > 1 ? ` (+${this.tripwires.length - 1} more)` : '';
      return { httpStatus: 200, body: { status: 'tripwire', reason: `open tripwire: incident ${t!.incident}: ${t!.summary}${t!.undo ? ` — undo: ${t!.undo}` : ''}${more}`, ...base } };
    }
    return { httpStatus: 200, body: { status: 'ok', reason: null, ...base } };
  }
}

// The periodic fleet copy's decision for one tenant at one round of its worker (mover.ts): nothing
// (not due), hold its next job (due while a job of it runs: passes back to back may leave it never
// idle at a round), or copy now — held while it copies, unless a copy of it failed lately (then the
// copy is tried when idle without holding its passes, until another everyMinutes).

export type CopyStep = 'not-due' | 'hold' | 'copy-held' | 'copy';

export interface CopyState {
  /** A job of the tenant runs now. */
  running: boolean;
  /** When its newest copy was taken (ms; 0: none). */
  lastCopyMs: number;
  /** After a failed copy: not held for one again before then (ms). */
  holdAgainAtMs?: number;
}

export function copyStep(t: CopyState, nowMs: number, everyMs: number): CopyStep {
  if (everyMs <= 0 || nowMs - t.lastCopyMs < everyMs) return 'not-due';
  const mayHold = nowMs >= (t.holdAgainAtMs ?? 0);
  if (t.running) return mayHold ? 'hold' : 'not-due';
  return mayHold ? 'copy-held' : 'copy';
}

/** The round's order: tenants already held first (a pass waits on each), otherwise as given. */
export function copyOrder<T extends { held: boolean }>(started: readonly T[]): T[] {
  return [...started].sort((a, b) => Number(b.held) - Number(a.held));
}

// How long "one incremental interval" is, for the health check's staleness rule (three intervals).
// Irregular expressions (e.g. `0 9,17 * * *`) have uneven gaps, so the widest gap over the next
// few runs is used: a daemon must not look stale merely because it is waiting for its next run.

import cron from 'node-cron';

const RUNS_LOOKED_AT = 12;

/** The widest gap, in ms, between consecutive run times of `expression` over its next runs. */
export function cronIntervalMs(expression: string): number {
  // createTask only parses and registers; it never fires until start(). destroy() unregisters it.
  const task = cron.createTask(expression, () => undefined, { name: 'wbsync-interval-probe' });
  try {
    const runs = task.getNextRuns(RUNS_LOOKED_AT).map((d) => d.getTime());
    let widest = 0;
    for (let i = 1; i < runs.length; i++) widest = Math.max(widest, runs[i] - runs[i - 1]);
    return widest > 0 ? widest : 60_000;
  } finally {
    void task.destroy();
  }
}

/** The next time `expression` fires after now (what the console shows as the next pass). */
export function nextCronRun(expression: string): Date | null {
  const task = cron.createTask(expression, () => undefined, { name: 'wbsync-next-probe' });
  try {
    // Not getNextRun(): node-cron 4 answers null for a task that is not started, and this probe
    // is never started (it must not fire). getNextRuns is computed from the expression alone.
    return task.getNextRuns(1)[0] ?? null;
  } finally {
    void task.destroy();
  }
}

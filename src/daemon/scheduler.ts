// When passes run: two cron schedules (incremental, full) feeding one overlap guard, so passes
// never run two at once. A tick during a pass is skipped and logged, except that a full tick
// during an incremental pass is queued (one at most) and runs as soon as that pass ends: the full
// schedule is typically daily, and skipping it would postpone it a whole day.

import cron from 'node-cron';

export type PassKind = 'full' | 'incremental';

/** Runs one pass; it must settle (errors are its own business, logged there). */
export type PassRunner = (kind: PassKind, reason: string) => Promise<void>;

export interface CronHandle {
  stop(): void;
}

/** The clock of the schedule; node-cron by default, a manual one in tests. */
export interface CronPort {
  schedule(expression: string, name: string, onTick: () => void): CronHandle;
}

export interface SchedulerLogger {
  info(fields: Record<string, unknown>, msg: string): void;
  warn(fields: Record<string, unknown>, msg: string): void;
  error(fields: Record<string, unknown>, msg: string): void;
}

export interface SchedulerOptions {
  incremental: string;
  full: string;
  run: PassRunner;
  logger: SchedulerLogger;
  cron?: CronPort;
  now?: () => number;
}

export interface RunningPass {
  kind: PassKind;
  reason: string;
  since: number;
}

export interface Scheduler {
  /** Registers both cron schedules. */
  start(): void;
  /** Starts a pass now unless one is running (then: skipped, or a full one queued). */
  trigger(kind: PassKind, reason: string): 'started' | 'queued' | 'skipped';
  /** No more ticks, the queued full pass is dropped; the pass in flight is left to finish. */
  stop(): void;
  running(): RunningPass | null;
  /** Resolves once no pass is running (immediately when idle). */
  idle(): Promise<void>;
}

export function nodeCronPort(logger: SchedulerLogger): CronPort {
  // node-cron's own warnings (e.g. missed executions) would go to the console; keep them in the log.
  const cronLogger = {
    info: (m: string) => logger.info({ source: 'node-cron' }, m),
    warn: (m: string) => logger.warn({ source: 'node-cron' }, m),
    error: (m: string | Error, e?: Error) => logger.error({ source: 'node-cron', err: String(e ?? m) }, String(m)),
    debug: () => undefined,
  };
  return {
    schedule(expression, name, onTick) {
      const task = cron.schedule(expression, () => onTick(), { name, logger: cronLogger });
      return {
        stop() {
          void task.stop();
          void task.destroy();
        },
      };
    },
  };
}

export function createScheduler(opts: SchedulerOptions): Scheduler {
  const now = opts.now ?? Date.now;
  const port = opts.cron ?? nodeCronPort(opts.logger);
  const handles: CronHandle[] = [];
  let current: (RunningPass & { done: Promise<void> }) | null = null;
  let fullQueued = false;
  let stopped = false;

  const launch = (kind: PassKind, reason: string): void => {
    let settle!: () => void;
    const done = new Promise<void>((resolve) => (settle = resolve));
    current = { kind, reason, since: now(), done };
    let pass: Promise<void>;
    try {
      pass = Promise.resolve(opts.run(kind, reason));
    } catch (e) {
      pass = Promise.reject(e);
    }
    void pass
      .catch((e: unknown) => opts.logger.error({ kind, err: String(e) }, 'pass runner threw'))
      .finally(() => {
        current = null;
        settle();
        if (fullQueued && !stopped) {
          fullQueued = false;
          launch('full', 'queued full tick');
        }
      });
  };

  const trigger = (kind: PassKind, reason: string): 'started' | 'queued' | 'skipped' => {
    if (stopped) return 'skipped';
    if (current) {
      const queue = kind === 'full' && current.kind === 'incremental' && !fullQueued;
      if (queue) fullQueued = true;
      opts.logger.info({ tick: kind, running: current.kind, queued: queue }, 'tick skipped: a pass is running');
      return queue ? 'queued' : 'skipped';
    }
    launch(kind, reason);
    return 'started';
  };

  return {
    start() {
      if (stopped || handles.length) return;
      handles.push(port.schedule(opts.incremental, 'wbsync-incremental', () => trigger('incremental', 'scheduled')));
      handles.push(port.schedule(opts.full, 'wbsync-full', () => trigger('full', 'scheduled')));
    },
    trigger,
    stop() {
      stopped = true;
      fullQueued = false;
      for (const h of handles.splice(0)) h.stop();
    },
    running: () => (current ? { kind: current.kind, reason: current.reason, since: current.since } : null),
    async idle() {
      // A queued full pass may start as the previous one settles: wait until nothing runs.
      while (current) await current.done;
    },
  };
}

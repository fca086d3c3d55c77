// Error logs that cannot flood: the same message (per key) at most once per window, the next
// line carrying how many repeats were suppressed. An outage must cost a line a minute, not a line
// per request.

export type LimitedLevel = 'info' | 'warn' | 'error';

export type LimitedLogger = Record<LimitedLevel, (fields: Record<string, unknown>, msg: string) => void>;

export interface RateLimitedLog {
  /** `key` defaults to the message; put the error text in it to tell errors apart. */
  log(level: LimitedLevel, fields: Record<string, unknown>, msg: string, key?: string): void;
  /** Writes the suppressed counts not yet reported (at shutdown). */
  flush(): void;
}

interface Entry {
  lastAt: number;
  suppressed: number;
  level: LimitedLevel;
  fields: Record<string, unknown>;
  msg: string;
}

const MAX_KEYS = 500;

export function createRateLimitedLog(logger: LimitedLogger, opts: { windowMs?: number; now?: () => number } = {}): RateLimitedLog {
  const windowMs = opts.windowMs ?? 60_000;
  const now = opts.now ?? Date.now;
  const seen = new Map<string, Entry>();

  const prune = (t: number): void => {
    if (seen.size < MAX_KEYS) return;
    for (const [k, e] of seen) if (t - e.lastAt >= windowMs && e.suppressed === 0) seen.delete(k);
    // Still full of distinct, recent keys: forget the oldest rather than grow without bound.
    while (seen.size >= MAX_KEYS) seen.delete(seen.keys().next().value as string);
  };

  return {
    log(level, fields, msg, key = msg) {
      const t = now();
      const e = seen.get(key);
      if (e && t - e.lastAt < windowMs) {
        e.suppressed += 1;
        e.fields = fields;
        return;
      }
      prune(t);
      const suppressed = e?.suppressed ?? 0;
      logger[level](suppressed ? { ...fields, suppressed } : fields, msg);
      seen.delete(key); // re-insert so Map order stays oldest-first for pruning
      seen.set(key, { lastAt: t, suppressed: 0, level, fields, msg });
    },
    flush() {
      for (const e of seen.values()) {
        if (e.suppressed) logger[e.level]({ ...e.fields, suppressed: e.suppressed }, e.msg);
        e.suppressed = 0;
      }
    },
  };
}

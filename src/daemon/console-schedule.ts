// The schedule as the web console shows it (next pass, one interval), read from the config's cron
// expressions: the console sits below the daemon and does not parse cron itself.
import type { Config } from '../config/schema.js';
import { cronIntervalMs, nextCronRun } from './cron-interval.js';
import type { ScheduleView } from '../ui/env.js';

export function scheduleView(config: Config): ScheduleView {
  return {
    intervalMs: cronIntervalMs(config.schedule.incremental),
    nextPass() {
      const inc = nextCronRun(config.schedule.incremental);
      const full = nextCronRun(config.schedule.full);
      const pick = full && (!inc || full.getTime() <= inc.getTime()) ? { kind: 'full' as const, at: full } : inc ? { kind: 'incremental' as const, at: inc } : null;
      return pick && { kind: pick.kind, at: pick.at.toISOString() };
    },
  };
}

// The web console under /ui/ on daemon.listen: its own read-only connection to the daemon's
// database, the daemon's health, the schedule. Beyond loopback without ui.tokenFile the console is
// left out (logged) — /healthz and /metrics keep serving scrapers as before.

import type { LoadedConfig } from '../config/load.js';
import type { Logger } from '../config/logger.js';
import { createConsole, type WebConsole } from '../ui/console.js';
import { isLoopback, readToken } from '../ui/security.js';
import { scheduleView } from './console-schedule.js';
import type { HealthBody } from './health-state.js';

export function mountConsole(opts: { loaded: LoadedConfig; logger: Logger; host: string; health: () => HealthBody }): WebConsole | null {
  const { config } = opts.loaded;
  if (config.db === ':memory:') return null;
  if (config.ui.tokenFile === undefined && !isLoopback(opts.host)) {
    opts.logger.warn({ listen: config.daemon.listen }, 'web console not served: daemon.listen is beyond loopback and ui.tokenFile is not set');
    return null;
  }
  const token = config.ui.tokenFile === undefined ? null : readToken(config.ui.tokenFile);
  return createConsole({
    dbPath: config.db,
    config,
    token,
    logger: opts.logger,
    schedule: scheduleView(config),
    live: () => {
      const h = opts.health();
      return { status: h.status, reason: h.reason, running: h.running };
    },
  });
}

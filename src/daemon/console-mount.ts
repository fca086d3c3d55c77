// The web console under /ui/ on daemon.listen: its own read-only connection to the daemon's
// database, the daemon's health, the schedule. Beyond loopback without ui.tokenFile, or without TLS
// (ui.tls.certFile/keyFile) and no TLS-terminating proxy declared (ui.behindTlsProxy), the console
// is left out (logged) — /healthz and /metrics keep serving scrapers as before. With TLS configured
// the whole listener is HTTPS.

import type { LoadedConfig } from '../config/load.js';
import type { Logger } from '../config/logger.js';
import { isWbsyncError } from '../domain/errors.js';
import { createConsole, type WebConsole } from '../ui/console.js';
import { readConsoleSecrets, readTlsMaterial, type TlsMaterial } from '../ui/secrets.js';
import { checkListen } from '../ui/security.js';
import { scheduleView } from './console-schedule.js';
import type { HealthBody } from './health-state.js';

export function mountConsole(opts: { loaded: LoadedConfig; logger: Logger; host: string; health: () => HealthBody }): { ui: WebConsole | null; tls: TlsMaterial | undefined } {
  const { config } = opts.loaded;
  if (config.db === ':memory:') return { ui: null, tls: readTlsMaterial(config.ui) };
  try {
    checkListen(opts.host, config.ui, 'daemon.listen');
  } catch (e) {
    if (!isWbsyncError(e)) throw e;
    const why = config.ui.tokenFile === undefined ? 'ui.tokenFile is not set' : 'neither TLS (ui.tls) nor a TLS-terminating proxy (ui.behindTlsProxy) is configured';
    opts.logger.warn({ listen: config.daemon.listen, hint: e.hint }, `web console not served: daemon.listen is beyond loopback and ${why}`);
    return { ui: null, tls: readTlsMaterial(config.ui) };
  }
  const { token, tls } = readConsoleSecrets(config.ui, opts.logger);
  const ui = createConsole({
    dbPath: config.db,
    config,
    token,
    logger: opts.logger,
    schedule: scheduleView(config),
    listenHost: opts.host,
    tls: tls !== undefined,
    live: () => {
      const h = opts.health();
      return { status: h.status, reason: h.reason, running: h.running };
    },
  });
  return { ui, tls };
}

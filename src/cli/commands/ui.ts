// `wbsync ui`: the read-only web console over a database, without a daemon (the daemon serves the
// same pages under /ui/ on daemon.listen).

import { shown } from '../../domain/display-text.js';
import { parseListen } from '../../config/listen.js';
import { scheduleView } from '../../daemon/console-schedule.js';
import { EXIT_CODES, WbsyncError } from '../../domain/errors.js';
import { createConsole } from '../../ui/console.js';
import { readConsoleSecrets } from '../../ui/secrets.js';
import { checkListen } from '../../ui/security.js';
import { startConsoleServer } from '../../ui/server.js';
import { stringFlag } from '../flag-values.js';
import type { Command } from '../command.js';

export const DEFAULT_UI_LISTEN = '127.0.0.1:9465';

export function parseUiListen(listen: string): { host: string; port: number } {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:\s[\]]+):(\d{1,5})$/.exec(listen);
  if (!m || Number(m[2]) > 65535) throw new WbsyncError('usage', `--listen wants HOST:PORT (e.g. 127.0.0.1:9465), got '${listen}'`, { hint: "see 'wbsync ui --help'" });
  const { host, port } = parseListen(listen);
  return { host: host.replace(/^\[|\]$/g, ''), port };
}

export const uiCommand: Command = {
  name: 'ui',
  summary: 'the read-only web console over a database: overview, snapshots, browse, recover',
  usage: 'wbsync ui [--listen HOST:PORT]',
  description:
    `Serves the web console at http://HOST:PORT/ui/ (default ${DEFAULT_UI_LISTEN}) until SIGTERM or SIGINT: the\n` +
    "backup's health and passes, the snapshots and what changed between any two, every module and\n" +
    'record as of any snapshot, full-text search, and a dry-run plan with the exact restore or\n' +
    'rollback command to copy. It opens the database read-only and runs nothing. The daemon serves\n' +
    'the same console under /ui/ on daemon.listen.\n' +
    'Listening beyond loopback needs ui.tokenFile (a bearer token; refused at start, exit 2, without\n' +
    'it) and TLS (ui.tls.certFile + ui.tls.keyFile, or ui.behindTlsProxy when a TLS-terminating proxy\n' +
    'is in front); requests must then carry `Authorization: Bearer <token>` or sign in through the\n' +
    'form. Only requests naming a loopback name, the listen address or ui.hosts are answered.',
  examples: ['wbsync ui', 'wbsync ui --listen 127.0.0.1:8080 --db ./data/wbsync.db', 'wbsync ui --json'],
  flags: [{ name: 'listen', type: 'string', valueName: 'HOST:PORT', description: `where to listen (default ${DEFAULT_UI_LISTEN}; beyond loopback needs ui.tokenFile and TLS)` }],
  async run(ctx) {
    const { host, port } = parseUiListen(stringFlag(ctx.args.flags, 'listen') ?? DEFAULT_UI_LISTEN);
    const { config } = ctx.config();
    checkListen(host, config.ui, '--listen');
    const logger = ctx.logger();
    const { token, tls } = readConsoleSecrets(config.ui, logger);
    const ui = createConsole({ dbPath: config.db, config, token, logger, schedule: scheduleView(config), listenHost: host, tls: tls !== undefined });
    try {
      const server = await startConsoleServer(host, port, ui, tls);
      try {
        logger.info({ url: server.url, db: config.db, token: token !== null }, 'console listening');
        if (ctx.json) ctx.emit({ url: server.url, db: config.db, tokenRequired: token !== null });
        else ctx.say(`wbsync console at ${server.url} (read-only, ${shown(config.db)}); Ctrl-C stops it`);
        await new Promise<void>((resolve) => {
          if (ctx.signal.aborted) return resolve();
          ctx.signal.addEventListener('abort', () => resolve(), { once: true });
        });
      } finally {
        await server.close();
      }
    } finally {
      ui.close();
    }
    return EXIT_CODES.ok;
  },
};

// `wbsync ui`: the read-only web console over a database, without a daemon (the daemon serves the
// same pages under /ui/ on daemon.listen).

import type { Command } from '../command.js';
import { DEFAULT_UI_LISTEN } from '../command-values.js';

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
  run: async (ctx) => (await import('../actions/ui.js')).runUiCommand(ctx),
};

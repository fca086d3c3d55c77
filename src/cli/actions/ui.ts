// `wbsync ui`: the read-only web console over a database, without a daemon (the daemon serves the
// same pages under /ui/ on daemon.listen).
// What it does, loaded only when it runs (its help and flags: ../commands/ui.ts).

import { shown } from '../../domain/display-text.js';
import { parseListen } from '../../config/listen.js';
import { scheduleView } from '../../daemon/console-schedule.js';
import { EXIT_CODES, WbsyncError } from '../../domain/errors.js';
import { createConsole } from '../../ui/console.js';
import { readConsoleSecrets } from '../../ui/secrets.js';
import { checkListen } from '../../ui/security.js';
import { startConsoleServer } from '../../ui/server.js';
import { stringFlag } from '../flag-values.js';
import type { CommandContext } from '../command.js';
import { DEFAULT_UI_LISTEN } from '../command-values.js';

export function parseUiListen(listen: string): { host: string; port: number } {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:\s[\]]+):(\d{1,5})$/.exec(listen);
  if (!m || Number(m[2]) > 65535) throw new WbsyncError('usage', `--listen wants HOST:PORT (e.g. 127.0.0.1:9465), got '${listen}'`, { hint: "see 'wbsync ui --help'" });
  const { host, port } = parseListen(listen);
  return { host: host.replace(/^\[|\]$/g, ''), port };
}

export async function runUiCommand(ctx: CommandContext): Promise<number> {
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
}

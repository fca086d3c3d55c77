// Opening what commands need: the service client (from config) and the snapshot store.

import { createHttpClient } from '../api/http-client.js';
import type { ServiceClient } from '../api/port.js';
import { requireService } from '../config/load.js';
import { EXIT_CODES } from '../domain/errors.js';
import { openStore } from '../store/index.js';
import type { Store } from '../store/port.js';
import type { CommandContext } from './command.js';
import { createProgressLine, formatRestoreProgress } from './progress.js';

/** Another service to write to (restore workspace --target-url / --target-key-file). */
export interface TargetService {
  baseUrl: string;
  apiKey: string;
}

export function openClient(ctx: CommandContext, onRetry?: () => void, target?: TargetService): ServiceClient {
  const loaded = ctx.config();
  const { baseUrl, apiKey } = target ?? requireService(loaded);
  const http = loaded.config.http;
  return createHttpClient({
    baseUrl,
    apiKey,
    concurrency: http.concurrency,
    timeoutMs: http.timeoutMs,
    retries: http.retries,
    logger: ctx.logger(),
    onRetry,
  });
}

export function openDb(ctx: CommandContext, opts: { readonly?: boolean } = {}): Store {
  return openStore(ctx.config().config.db, opts);
}


/** What a command that writes through the restore journal opens: the client, the store and a
 * progress line fed by the applier; `close()` (in a finally) ends the line and closes both. */
export function openForRun(ctx: CommandContext, target?: TargetService): { client: ServiceClient; store: Store; onProgress: (done: number, total: number) => void; endProgress(): void; close(): Promise<void> } {
  const client = openClient(ctx, undefined, target);
  const store = openDb(ctx);
  const progress = createProgressLine(ctx.stderr, !ctx.json);
  const started = Date.now();
  return {
    client,
    store,
    onProgress: (done, total) => progress.show(formatRestoreProgress(done, total, Date.now() - started), done >= total),
    endProgress: () => progress.done(),
    async close() {
      progress.done();
      store.close();
      await client.close();
    },
  };
}

/**
 * A command that writes through the restore journal, end to end: open, `go`, end the progress line,
 * print (the one JSON document, or `lines`), and the exit code (5 when the service refused writes,
 * unless `exitOf` says more); the client and store are closed whatever happens.
 */
export async function runJournaledCommand<R extends { refused: number }>(
  ctx: CommandContext,
  go: (run: ReturnType<typeof openForRun>) => Promise<R>,
  lines: (r: R) => string[],
  opts: { target?: TargetService; exitOf?: (r: R) => number } = {},
): Promise<number> {
  const run = openForRun(ctx, opts.target);
  try {
    const r = await go(run);
    run.endProgress();
    if (ctx.json) ctx.emit(r);
    else ctx.say(lines(r).join('\n'));
    return opts.exitOf ? opts.exitOf(r) : r.refused ? EXIT_CODES.partial : EXIT_CODES.ok;
  } finally {
    await run.close();
  }
}


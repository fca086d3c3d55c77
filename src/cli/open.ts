// Opening what commands that talk to the service need: the client (from config), and for a command
// that writes through the restore journal the client, the store and the lock together.

import { createHttpClient } from '../api/http-client.js';
import type { ServiceClient } from '../api/port.js';
import { requireService } from '../config/load.js';
import { EXIT_CODES } from '../domain/errors.js';
import type { DbLock } from '../store/lock.js';
import type { Store } from '../store/port.js';
import type { CommandContext } from './command.js';
import { lockForWrite, NO_LOCK, openDb } from './open-db.js';
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

/** What a command that writes through the restore journal opens: the client, the store and a
 * progress line fed by the applier; `close()` (in a finally) ends the line and closes both. */
export interface RunOptions {
  /** Names the command in others' lock messages ('rollback', 'restore module'…). */
  command: string;
  /** A dry run writes nothing: it takes no lock. */
  dryRun?: boolean;
  target?: TargetService;
}

export type OpenRun = { client: ServiceClient; store: Store; onProgress: (done: number, total: number) => void; endProgress(): void; close(): Promise<void> };

export async function openForRun(ctx: CommandContext, opts: RunOptions): Promise<OpenRun> {
  const client = openClient(ctx, undefined, opts.target);
  let lock: DbLock = NO_LOCK;
  let store: Store;
  try {
    if (!opts.dryRun) lock = await lockForWrite(ctx, opts.command);
    store = openDb(ctx);
  } catch (e) {
    lock.release();
    await client.close();
    throw e;
  }
  const progress = createProgressLine(ctx.stderr, !ctx.json);
  const started = Date.now();
  return {
    client,
    store,
    onProgress: (done, total) => progress.show(formatRestoreProgress(done, total, Date.now() - started), done >= total),
    endProgress: () => progress.done(),
    async close() {
      progress.done();
      try {
        store.close();
      } finally {
        lock.release();
        await client.close();
      }
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
  go: (run: OpenRun) => Promise<R>,
  lines: (r: R) => string[],
  opts: RunOptions & { exitOf?: (r: R) => number },
): Promise<number> {
  const run = await openForRun(ctx, opts);
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


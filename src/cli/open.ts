// Opening what commands need: the service client (from config) and the snapshot store.

import { shown, terminalText } from '../domain/display-text.js';
import path from 'node:path';
import { createHttpClient } from '../api/http-client.js';
import { waitForLock, type DbLock } from '../store/lock.js';
import type { ServiceClient } from '../api/port.js';
import { requireService } from '../config/load.js';
import { EXIT_CODES, WbsyncError } from '../domain/errors.js';
import { ensureDir } from '../store/file-modes.js';
import { openStore } from '../store/index.js';
import { inspectDatabase, refuseUnusable } from '../store/open-inspect.js';
import { toStorageError } from '../store/storage-error.js';
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

const NO_LOCK: DbLock = { path: ':memory:', pid: process.pid, release: () => undefined };

/**
 * The database's write lock for a command that changes it (`command` names it in others'
 * messages). Beside a running daemon or another writer it waits its turn — between the daemon's
 * passes — saying on stderr what it waits for; it never asks anyone to stop the daemon. What is
 * at the path is checked first, without writing: `create` (sync) accepts a missing database and
 * makes its folder; every other writer needs a database that exists.
 */
export async function lockForWrite(ctx: CommandContext, command: string, opts: { create?: boolean } = {}): Promise<DbLock> {
  const db = ctx.config().config.db;
  if (db === ':memory:') return NO_LOCK;
  const file = path.resolve(db);
  try {
    refuseUnusable(file, inspectDatabase(file), opts.create ? 'write' : 'change');
  } catch (e) {
    throw toStorageError(e, `opening database ${file}`);
  }
  if (opts.create) {
    try {
      ensureDir(path.dirname(file));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? 'error';
      throw new WbsyncError('storage', `cannot create the folder ${path.dirname(file)} for the database (${code})`, {
        hint: 'check --db (or `db` in the configuration): its folder must be creatable and writable by this user',
        cause: e,
      });
    }
  }
  let told = false;
  const lock = await waitForLock(file, {
    command,
    signal: ctx.signal,
    logger: ctx.logger(),
    onWait: (who, waitedMs) => {
      ctx.stderr.write(
        terminalText(
          told
            ? `wbsync: still waiting for ${shown(who)} (${Math.round(waitedMs / 1000)} s)\n`
            : `wbsync: the database is being changed by ${shown(who)}; this ${command} waits its turn (up to 30 min)\n`,
        ),
      );
      told = true;
    },
  });
  ctx.logger().debug({ command, lock: lock.path }, 'database write lock taken');
  let released = false;
  return {
    path: lock.path,
    pid: lock.pid,
    release() {
      if (released) return;
      released = true;
      lock.release();
      ctx.logger().debug({ command, lock: lock.path }, 'database write lock released');
    },
  };
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


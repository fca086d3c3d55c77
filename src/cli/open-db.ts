// Opening the snapshot store for a command, and its write lock. Apart from open.ts (the service
// client): a command that only reads the database does not load the HTTP client.

import path from 'node:path';
import { shown, terminalText } from '../domain/display-text.js';
import { WbsyncError } from '../domain/errors.js';
import { ensureDir } from '../store/file-modes.js';
import { openStore } from '../store/index.js';
import { waitForLock, type DbLock } from '../store/lock.js';
import { inspectDatabase, refuseUnusable } from '../store/open-inspect.js';
import type { Store } from '../store/port.js';
import { toStorageError } from '../store/storage-error.js';
import type { CommandContext } from './command.js';

export function openDb(ctx: CommandContext, opts: { readonly?: boolean } = {}): Store {
  return openStore(ctx.config().config.db, opts);
}

/** What a command holds on an in-memory database: nothing. */
export const NO_LOCK: DbLock = { path: ':memory:', pid: process.pid, release: () => undefined };

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

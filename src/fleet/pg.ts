// The fleet's Postgres connection: the URL read from the file `fleet.postgresUrlFile` names (it holds
// a password: never a flag, never logged), a pool whose idle errors are logged instead of crashing
// the process, and redaction of the URL and its password from every message that leaves this room.

import { readFileSync } from 'node:fs';
import pg from 'pg';
import type { Config } from '../config/schema.js';
import { WbsyncError } from '../domain/errors.js';
import { secretFileWarning } from '../config/secret-file.js';

export interface FleetDb {
  pool: pg.Pool;
  /** The URL, for pg-boss and dedicated connections only; never print it. */
  url: string;
  /** The text with the URL, its password and user:password pair replaced by ***. */
  redact(text: string): string;
  /** Warnings to log once (a URL file others may read). */
  warnings: string[];
  close(): Promise<void>;
}

export function readPostgresUrl(config: Pick<Config, 'fleet'>): { url: string; warnings: string[] } {
  const file = config.fleet.postgresUrlFile;
  if (!file) {
    throw new WbsyncError('config', 'fleet.postgresUrlFile: no Postgres URL file is configured', {
      hint: 'set fleet.postgresUrlFile (or WBSYNC_FLEET_POSTGRES_URL_FILE) to a file holding postgres://USER:PASSWORD@HOST:PORT/DB (mode 0600)',
    });
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new WbsyncError('config', `cannot read the Postgres URL file ${file} (${(e as NodeJS.ErrnoException).code ?? 'error'})`, {
      hint: 'set fleet.postgresUrlFile to a readable file holding only the URL',
    });
  }
  const url = text.trim();
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new WbsyncError('config', `the Postgres URL file ${file} does not hold a URL`, { hint: 'write postgres://USER:PASSWORD@HOST:PORT/DB into it (one line)' });
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new WbsyncError('config', `the Postgres URL file ${file} holds a ${parsed.protocol.replace(/:$/, '')} URL, not postgres://`, { hint: 'write postgres://USER:PASSWORD@HOST:PORT/DB into it' });
  }
  const loose = secretFileWarning(file, 'fleet.postgresUrlFile');
  return { url, warnings: loose ? [loose] : [] };
}

export function redactorFor(url: string): (text: string) => string {
  const secrets = new Set<string>([url]);
  try {
    const u = new URL(url);
    if (u.password) {
      secrets.add(u.password);
      secrets.add(decodeURIComponent(u.password));
      secrets.add(`${u.username}:${u.password}`);
    }
  } catch {
    /* the URL was checked when read */
  }
  const list = [...secrets].filter((s) => s.length >= 3).sort((a, b) => b.length - a.length);
  return (text) => list.reduce((t, s) => t.split(s).join('***'), text);
}

/** An error as a WbsyncError('unreachable' for connection problems) with the URL scrubbed. */
export function fleetError(e: unknown, redact: (t: string) => string, doing: string): WbsyncError {
  if (e instanceof WbsyncError) return new WbsyncError(e.code, redact(e.message), { hint: e.hint && redact(e.hint), details: e.details });
  const err = e as { message?: string; code?: string };
  const message = redact(String(err.message ?? e));
  const network = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|EHOSTUNREACH|timeout|terminat|Connection|57P0[1-3]/i.test(`${err.code ?? ''} ${message}`);
  return new WbsyncError(network ? 'unreachable' : 'internal', `Postgres: ${doing}: ${message}`, {
    hint: network ? 'check that the fleet\'s Postgres runs and that fleet.postgresUrlFile names it' : 'this may be a bug in wbsync; the Postgres log may say more',
    retryable: network,
  });
}

export interface OpenOptions {
  max?: number;
  onIdleError?: (message: string) => void;
  applicationName?: string;
}

export function openFleetDb(config: Pick<Config, 'fleet'>, opts: OpenOptions = {}): FleetDb {
  const { url, warnings } = readPostgresUrl(config);
  const redact = redactorFor(url);
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max ?? 10,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    application_name: opts.applicationName ?? 'wbsync-fleet',
  });
  pool.on('error', (e) => opts.onIdleError?.(redact(e.message)));
  // a client checked out of the pool (a transaction) emits its connection's loss on itself: without
  // a listener that would end the process; the query in flight fails on its own
  pool.on('connect', (client) => client.on('error', () => undefined));
  let closed = false;
  return {
    pool,
    url,
    redact,
    warnings,
    async close() {
      if (closed) return;
      closed = true;
      await pool.end().catch(() => undefined);
    },
  };
}

/** Runs fn in a transaction on one pooled connection. */
export async function inTransaction<T>(pool: pg.Pool, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  try {
    await c.query('begin');
    const out = await fn(c);
    await c.query('commit');
    return out;
  } catch (e) {
    await c.query('rollback').catch(() => undefined);
    throw e;
  } finally {
    c.release();
  }
}

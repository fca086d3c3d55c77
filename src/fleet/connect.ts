// For the fleet's commands: the Postgres pool opened from the configuration, the schema brought up
// to date, the work done, the pool closed — every error leaving with the URL scrubbed.

import type { Config } from '../config/schema.js';
import type { Logger } from '../config/logger.js';
import { fleetError, openFleetDb, type FleetDb } from './pg.js';
import { ensureFleetSchema } from './schema.js';

export async function withFleetDb<T>(config: Pick<Config, 'fleet'>, logger: Logger | null, doing: string, fn: (db: FleetDb) => Promise<T>): Promise<T> {
  const db = openFleetDb(config, { max: 2, onIdleError: (m) => logger?.warn({ err: m }, 'Postgres connection lost') });
  for (const w of db.warnings) logger?.warn({}, w);
  try {
    await ensureFleetSchema(db.pool).catch((e: unknown) => {
      throw fleetError(e, db.redact, 'preparing the fleet schema');
    });
    return await fn(db).catch((e: unknown) => {
      throw fleetError(e, db.redact, doing);
    });
  } finally {
    await db.close();
  }
}

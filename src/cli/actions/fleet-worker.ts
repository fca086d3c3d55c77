// `wbsync fleet worker`, `wbsync fleet status` and `wbsync fleet budget`.
// What it does, loaded only when it runs (its help and flags: ../commands/fleet-worker.ts).

import { EXIT_CODES, WbsyncError } from '../../domain/errors.js';
import { withFleetDb } from '../../fleet/connect.js';
import { checkBaseUrl } from '../../fleet/tenants.js';
import { stringFlag } from '../flag-values.js';
import type { CommandContext } from '../command.js';

export async function runFleetWorkerCommand(ctx: CommandContext): Promise<number> {
  const data = stringFlag(ctx.args.flags, 'data');
  const id = stringFlag(ctx.args.flags, 'id');
  if (!data || !id) throw new WbsyncError('usage', 'fleet worker needs --data DIR and --id ID', { hint: "see 'wbsync fleet worker --help'" });
  const capacity = ctx.args.flags.capacity === undefined ? 10 : (ctx.args.flags.capacity as number);
  const { runFleetWorker } = await import('../../fleet/worker.js');
  const out = await runFleetWorker({ loaded: ctx.config(), logger: ctx.logger(), signal: ctx.signal, dataDir: data, id, capacity });
  if (ctx.json) ctx.emit({ stopped: true, ...out });
  return EXIT_CODES.ok;
}

export async function runFleetStatusCommand(ctx: CommandContext): Promise<number> {
  const { config } = ctx.config();
  const { readFleetStatus, formatFleetStatus } = await import('../../fleet/status.js');
  const s = await withFleetDb(config, ctx.logger(), 'reading the fleet status', (db) => readFleetStatus(db.pool, config.fleet.workerTtlSeconds, config.freshness.maxStalenessMinutes));
  if (ctx.json) ctx.emit(s);
  else ctx.say(formatFleetStatus(s));
  // as `sync` for a failed part: the status was read, but some tenants are failing (listed)
  return s.failing > 0 ? EXIT_CODES.partial : EXIT_CODES.ok;
}

export async function runFleetBudgetCommand(ctx: CommandContext): Promise<number> {
  const url = checkBaseUrl(ctx.args.positionals[0]!);
  const rps = ctx.args.flags['requests-per-second'] as number | undefined;
  const inFlight = ctx.args.flags['in-flight'] as number | undefined;
  if (rps !== undefined && !(rps >= 1)) throw new WbsyncError('usage', '--requests-per-second must be at least 1');
  if (inFlight !== undefined && !(Number.isInteger(inFlight) && inFlight >= 1)) throw new WbsyncError('usage', '--in-flight must be a whole number, at least 1');
  if (rps === undefined && inFlight === undefined) throw new WbsyncError('usage', 'fleet budget needs --requests-per-second N and/or --in-flight N');
  const { setServiceBudget } = await import('../../fleet/budget.js');
  await withFleetDb(ctx.config().config, ctx.logger(), 'setting the budget', (db) => setServiceBudget(db.pool, url, { ...(rps !== undefined ? { requestsPerSecond: rps } : {}), ...(inFlight !== undefined ? { inFlight } : {}) }));
  if (ctx.json) ctx.emit({ service: url, requestsPerSecond: rps ?? null, inFlight: inFlight ?? null });
  else ctx.say(`budget of ${url} set${rps !== undefined ? `: ${rps} requests per second` : ''}${inFlight !== undefined ? `${rps !== undefined ? ',' : ':'} ${inFlight} in flight` : ''}`);
  return EXIT_CODES.ok;
}

// `wbsync fleet drain WORKER` and `wbsync fleet adopt TENANT --to WORKER`: moving tenants between
// workers with their history (src/fleet/move.ts says how).
// What it does, loaded only when it runs (its help and flags: ../commands/fleet-move.ts).

import { shown } from '../../domain/display-text.js';
import { EXIT_CODES, WbsyncError } from '../../domain/errors.js';
import { commandLine } from '../../domain/shell-command.js';
import { withFleetDb } from '../../fleet/connect.js';
import { fleetCopySettings } from '../../fleet/copy-settings.js';
import { adoptTenant, movesOf, requestDrain, undrain, type MoveRow } from '../../fleet/move.js';
import { intFlag, stringFlag } from '../flag-values.js';
import type { CommandContext } from '../command.js';

const moveLine = (m: MoveRow): string => `${m.tenant}: ${m.state}${m.to ? ` → ${m.to}` : ''}${m.error ? ` (${shown(m.error)})` : ''}`;

async function waitForMoves(ctx: CommandContext, tenants: string[], seconds: number): Promise<MoveRow[]> {
  const { config } = ctx.config();
  const deadline = Date.now() + seconds * 1000;
  let last: MoveRow[] = [];
  for (;;) {
    last = await withFleetDb(config, ctx.logger(), 'reading the moves', async (db) => {
      const all = await movesOf(db.pool, tenants);
      const latest = new Map<string, MoveRow>();
      for (const m of all) latest.set(m.tenant, m);
      return [...latest.values()];
    });
    if (last.every((m) => m.state === 'done' || m.state === 'failed') || Date.now() > deadline) return last;
    await new Promise((r) => setTimeout(r, 500));
  }
}

export async function runFleetDrainCommand(ctx: CommandContext): Promise<number> {
  const worker = ctx.args.positionals[0]!;
  const { config } = ctx.config();
  if (ctx.args.flags.undo === true) {
    const ok = await withFleetDb(config, ctx.logger(), 'undoing the drain', (db) => undrain(db.pool, worker));
    if (!ok) throw new WbsyncError('usage', `no worker ${JSON.stringify(worker)} in the fleet`, { hint: "see 'wbsync fleet status'" });
    if (ctx.json) ctx.emit({ worker, draining: false });
    else ctx.say(`worker ${worker} takes tenants again`);
    return EXIT_CODES.ok;
  }
  const wait = intFlag(ctx.args.flags, 'wait', 'fleet drain');
  if (!config.fleet.copies.bucket || !config.fleet.copyRecipient) fleetCopySettings(config); // refuses, naming what to set
  const r = await withFleetDb(config, ctx.logger(), 'draining the worker', (db) => requestDrain(db.pool, worker, config.fleet.workerTtlSeconds));
  const tenants = [...new Set([...r.requested, ...r.open].map((m) => m.tenant))];
  const final = wait !== undefined && tenants.length && r.alive ? await waitForMoves(ctx, tenants, wait) : null;
  if (ctx.json) ctx.emit({ worker, draining: true, alive: r.alive, heartbeatAgeSeconds: r.heartbeatAgeSeconds, moves: final ?? [...r.requested, ...r.open.filter((o) => !r.requested.some((q) => q.id === o.id))] });
  else {
    ctx.say(tenants.length ? `worker ${worker} draining: ${tenants.length} tenant(s) to move (${tenants.join(', ')})` : `worker ${worker} draining: no tenant homed on it`);
    if (!r.alive && tenants.length) {
      ctx.say(`worker ${worker} is gone (heartbeat ${r.heartbeatAgeSeconds} s ago): only it can copy its tenants. Bring it back with its volume, or adopt each from its latest fleet copy:`);
      for (const t of tenants) ctx.say(`  ${commandLine(['wbsync', 'fleet', 'adopt', t, '--to', 'WORKER'])}`);
    }
    if (final) for (const m of final) ctx.say(`  ${moveLine(m)}`);
    else if (tenants.length && r.alive) ctx.say(`follow the moves: ${commandLine(['wbsync', 'fleet', 'status'])}`);
  }
  const unfinished = final?.filter((m) => m.state !== 'done') ?? [];
  if (final && unfinished.length) throw new WbsyncError('partial', `${unfinished.length} move(s) not done: ${unfinished.map(moveLine).join('; ')}`, { hint: `run ${commandLine(['wbsync', 'fleet', 'status'])} to see them` });
  return EXIT_CODES.ok;
}

export async function runFleetAdoptCommand(ctx: CommandContext): Promise<number> {
  const tenant = ctx.args.positionals[0]!;
  const to = stringFlag(ctx.args.flags, 'to');
  if (!to) throw new WbsyncError('usage', 'fleet adopt needs --to WORKER', { hint: "see 'wbsync fleet status' for the live workers" });
  const { config } = ctx.config();
  const copies = fleetCopySettings(config);
  try {
    const r = await withFleetDb(config, ctx.logger(), 'adopting the tenant', (db) => adoptTenant(db.pool, copies, tenant, to, config.fleet.workerTtlSeconds));
    if (ctx.json) ctx.emit({ adopted: { tenant: r.tenant, from: r.from, to: r.to, epoch: r.epoch, copy: { key: r.copy.manifestKey, snapshot: r.copy.snapshot, snapshotAt: r.copy.snapshotAt, takenAt: r.copy.takenAt, worker: r.copy.worker }, gap: { since: r.gapSince, lostRuns: r.lostRuns, lastLostRunAt: r.lastRunAt } } });
    else {
      ctx.say(`tenant ${r.tenant} adopted by ${r.to} (epoch ${r.epoch}), from its fleet copy of snapshot ${r.copy.snapshot ?? 'none'} (taken ${r.copy.takenAt} on ${r.copy.worker})`);
      ctx.say(
        r.lostRuns
          ? `gap: ${r.lostRuns} pass(es) ${r.from} made after that copy (the last at ${r.lastRunAt}) are lost with its volume; the service's history from ${r.gapSince ?? r.copy.takenAt} to the next pass is not in the backup`
          : `gap: none recorded — ${r.from} made no pass after that copy; the service's changes since ${r.gapSince ?? r.copy.takenAt} come with the next pass`,
      );
      ctx.say(`${r.to}'s first pass of ${r.tenant} is a full pass, to cover it`);
    }
    return EXIT_CODES.ok;
  } finally {
    copies.close();
  }
}

// `wbsync sync`: one pass, incremental when cursors exist, else full.
// What it does, loaded only when it runs (its help and flags: ../commands/sync.ts).

import { shown } from '../../domain/display-text.js';
import { EXIT_CODES } from '../../domain/errors.js';
import { runPass, type PassResult } from '../../sync/pass.js';
import { announceTripwire } from '../../tripwire/announce.js';
import type { TripwireOutcome } from '../../tripwire/check-pass.js';
import { Notifier } from '../../alerts/notifier.js';
import { listFlag } from '../flag-values.js';
import type { CommandContext } from '../command.js';
import { openClient } from '../open.js';
import { lockForWrite, openDb } from '../open-db.js';
import { createProgressLine } from '../progress.js';

function countsLine(counts: Record<string, number>): string {
  const parts = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${n}`);
  return parts.length ? parts.join(', ') : 'none';
}

export function formatPass(r: PassResult): string {
  const lines = [
    `snapshot ${r.snapshot} (${r.kind}) ${r.status} in ${(r.durationMs / 1000).toFixed(1)} s — ${r.requests} requests, ${r.retries} retries`,
    `  new or changed versions: ${countsLine(r.counts)}`,
    `  gone: ${countsLine(r.gone)}`,
  ];
  for (const w of r.workspaces) {
    lines.push(
      `  workspace ${w.workspaceId}: ${w.mode}${w.fallback ? ` (fell back: ${shown(w.fallback)})` : ''}, ${w.modulesCrawled} modules read, ${w.activityRows} activity rows`,
    );
  }
  if (r.failures.length) {
    lines.push(`some parts failed (exit ${EXIT_CODES.partial}):`);
    for (const f of r.failures) {
      lines.push(`  - workspace ${f.workspaceId}${f.moduleId ? ` module ${f.moduleId}${f.moduleName ? ` (${shown(f.moduleName)})` : ''}` : ''}: ${shown(f.reason)}`);
    }
  }
  return lines.join('\n');
}

/** What the tripwire found in this pass (the same step the daemon runs after each pass). */
export function formatTripwire(t: TripwireOutcome): string[] {
  const lines: string[] = [];
  for (const r of t.recovered) lines.push(`tripwire: incident ${r.incident.id} recovered (${r.how})`);
  for (const x of t.tripped) {
    lines.push(`tripwire: incident ${x.incident.id}: ${shown(x.incident.summary)}`, ...x.incident.what.map((w) => `  - ${shown(w)}`), `  snapshot ${x.incident.snapshotBefore} is held from pruning`);
    if (x.undo) lines.push(`  undo: ${x.undo}`);
  }
  return lines;
}

export async function runSyncCommand(ctx: CommandContext): Promise<number> {
  const { config } = ctx.config();
  // the service and key first: a sync without them creates nothing (not even ./data/)
  const client = openClient(ctx);
  let lock: Awaited<ReturnType<typeof lockForWrite>> | undefined;
  let store: ReturnType<typeof openDb> | undefined;
  const progress = createProgressLine(ctx.stderr, !ctx.json);
  try {
    // The write lock: beside a running daemon this pass waits for the daemon's pass in flight,
    // then runs now, between its passes; never two passes at once on one file.
    lock = await lockForWrite(ctx, 'sync', { create: true });
    store = openDb(ctx);
    const result = await runPass(
      { client, store, logger: ctx.logger() },
      {
        full: ctx.args.flags.full === true,
        workspaceIds: listFlag(ctx.args.flags, 'workspace'),
        include: config.workspaces.include,
        exclude: config.workspaces.exclude,
        signal: ctx.signal,
        feedSlices: config.http.concurrency,
        maxStalenessMs: config.freshness.maxStalenessMinutes * 60_000,
        onProgress: (p) => progress.update(p),
        acceptLoss: ctx.args.flags['accept-loss'] === true,
      },
    );
    progress.done();
    // every pass runs the tripwire, this one too: incidents, holds and alerts as the daemon's
    const notifier = new Notifier({ webhooks: config.alerts.webhooks, healthchecksUrl: config.alerts.healthchecksUrl, database: store.path, timeoutMs: config.alerts.timeoutMs, logger: ctx.logger() });
    const tripwire = announceTripwire({ store, config: config.tripwire, logger: ctx.logger(), notifier, now: new Date() }, result);
    await notifier.drain(config.alerts.timeoutMs * 4);
    ctx.logger().info(
      { snapshot: result.snapshot, kind: result.kind, requests: result.requests, retries: result.retries, durationMs: result.durationMs, failures: result.failures.length },
      'pass finished',
    );
    if (ctx.json) ctx.emit({ ...result, tripwire: { incidents: tripwire.tripped.map((t) => ({ id: t.incident.id, kind: t.incident.kind, summary: t.incident.summary, undo: t.undo, undoArgv: t.undoArgv })), recovered: tripwire.recovered.map((r) => r.incident.id) } });
    else ctx.say([formatPass(result), ...formatTripwire(tripwire)].join('\n'));
    return result.failures.length ? EXIT_CODES.partial : EXIT_CODES.ok;
  } finally {
    progress.done();
    try {
      store?.close();
    } finally {
      lock?.release();
      await client.close();
    }
  }
}

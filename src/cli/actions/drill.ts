// `wbsync drill`: proves the backup restores — snapshot N restored into a scratch service (the
// bundled emulator, or a staging service), read back and compared. Exit 0 only when equal.
// What it does, loaded only when it runs (its help and flags: ../commands/drill.ts).

import { EXIT_CODES, WbsyncError } from '../../domain/errors.js';
import { runDrill } from '../../drill/drill.js';
import { formatDrill } from '../../drill/format.js';
import type { CommandContext } from '../command.js';
import { intFlag, listFlag, stringFlag } from '../flag-values.js';
import { targetOf } from './restore-workspace.js';

export async function runDrillCommand(ctx: CommandContext): Promise<number> {
  const { config } = ctx.config();
  const flags = ctx.args.flags;
  const snapshotId = intFlag(flags, 'snapshot', 'drill');
  if (snapshotId !== undefined && snapshotId < 1) throw new WbsyncError('usage', '--snapshot: expected a snapshot id (a positive whole number)');
  const dialect = stringFlag(flags, 'dialect') ?? config.drill.dialect;
  if (dialect !== 'observed' && dialect !== 'spec') throw new WbsyncError('usage', `--dialect: expected observed or spec, got '${dialect}'`);
  const target = targetOf(flags);
  const report = await runDrill({
    db: config.db,
    ...(snapshotId !== undefined ? { snapshotId } : {}),
    workspaceIds: listFlag(flags, 'workspace'),
    dialect,
    ...(target ? { target } : {}),
    attribution: config.restore.attribution,
    http: config.http,
    logger: ctx.logger(),
    signal: ctx.signal,
  });
  ctx.logger().info({ snapshot: report.snapshot, ok: report.ok, durationMs: report.durationMs, workspaces: report.workspaces.length }, 'drill finished');
  if (ctx.json) ctx.emit(report);
  else ctx.say(formatDrill(report));
  return report.ok ? EXIT_CODES.ok : EXIT_CODES.partial;
}

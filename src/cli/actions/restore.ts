// `wbsync restore module ID`, `wbsync restore records ID…` (and `restore workspace ID`, its own file): plan, then apply through a journal
// in the database, so running the same command again resumes without creating anything twice.
// What it does, loaded only when it runs (its help and flags: ../commands/restore.ts).

import { shown } from '../../domain/display-text.js';
import { EXIT_CODES, WbsyncError } from '../../domain/errors.js';
import { restoreModule, restoreRecords } from '../../restore/index.js';
import { intFlag, stringFlag } from '../flag-values.js';
import type { CommandContext } from '../command.js';
import { openForRun, runJournaledCommand } from '../open.js';
import { countsLine, notRestoredLines, planLines, repointLines } from './restore-output.js';

const usageHint = { hint: "see 'wbsync restore --help'" };

export async function runRestoreModuleCommand(ctx: CommandContext): Promise<number> {
  const [moduleId] = ctx.args.positionals;
  const flags = ctx.args.flags;
  if (!moduleId) throw new WbsyncError('usage', 'restore module needs a module id', usageHint);
  const snapshotId = intFlag(flags, 'snapshot', 'restore module');
  const dryRun = flags['dry-run'] === true;
  const { config } = ctx.config();
  return runJournaledCommand(
    ctx,
    ({ client, store, onProgress }) =>
      restoreModule(
        { client, store, logger: ctx.logger() },
        {
          moduleId,
          snapshotId,
          workspaceId: stringFlag(flags, 'workspace'),
          asCopy: flags['as-copy'] === true,
          pauseAutomations: flags['pause-automations'] === true,
          dryRun,
          attribution: config.restore.attribution,
          signal: ctx.signal,
          onProgress,
        },
      ),
    (r) => {
      const lines: string[] = [];
      if (r.plan) lines.push(`module ${shown(r.moduleName)} (${r.sourceModuleId}) from snapshot ${r.snapshot} into workspace ${r.targetWorkspaceId}`, ...planLines(r.plan));
      else if (r.alreadyRestored) lines.push(`module ${shown(r.moduleName)} was already restored by run ${r.runId}: ${r.moduleId}`);
      else lines.push(`restored module ${shown(r.moduleName)} (${r.sourceModuleId}) from snapshot ${r.snapshot} as ${r.moduleId}${r.resumed ? ' (resumed)' : ''}`);
      lines.push(`  ${r.plan ? 'would restore' : 'counts'}: ${countsLine(r.counts)}`);
      if (r.pausedAutomations.length) lines.push(`  paused and re-activated ${r.pausedAutomations.length} workspace automation(s)`);
      lines.push(...repointLines(r.repointed, r.plan !== undefined).map((l) => `  ${l}`));
      for (const w of r.warnings) lines.push(`  warning: ${w}`);
      if (!r.plan) lines.push(`  ${r.requests} requests in ${(r.durationMs / 1000).toFixed(1)} s`);
      return [...lines, ...notRestoredLines(r.notRestored)];
    },
    { command: 'restore module', dryRun },
  );
}

export async function runRestoreRecordsCommand(ctx: CommandContext): Promise<number> {
  const ids = ctx.args.positionals;
  const flags = ctx.args.flags;
  if (!ids.length) throw new WbsyncError('usage', 'restore records needs record ids', usageHint);
  const snapshotId = intFlag(flags, 'snapshot', 'restore records');
  const dryRun = flags['dry-run'] === true;
  const { config } = ctx.config();
  const run = await openForRun(ctx, { command: 'restore records', dryRun });
  const { client, store } = run;
  try {
    const r = await restoreRecords({ client, store }, { recordIds: ids, snapshotId, collectionId: stringFlag(flags, 'collection'), dryRun, attribution: config.restore.attribution });
    if (ctx.json) ctx.emit(r);
    else {
      const lines = r.records.map((o) => `${dryRun ? 'would be ' : ''}${o.action}: ${shown(o.name)} (${o.id})${o.newId && o.newId !== o.id ? ` → ${o.newId}` : ''}`);
      if (r.plan) lines.push(...planLines(r.plan));
      lines.push(`counts: ${countsLine(r.counts)}`, ...notRestoredLines(r.notRestored));
      ctx.say(lines.join('\n'));
    }
    return r.refused ? EXIT_CODES.partial : EXIT_CODES.ok;
  } finally {
    await run.close();
  }
}

// `wbsync prune`: forget the snapshots a retention policy (flags, else `retention.*`) does not
// keep, without changing what any kept snapshot shows; `--dry-run` lists exactly what would go.

import type { Command } from '../command.js';
import { RULES } from '../command-values.js';

export const pruneCommand: Command = {
  name: 'prune',
  summary: 'forget snapshots outside a retention policy (restic semantics) without changing what kept ones show',
  usage: 'wbsync prune [--keep-last N] [--keep-hourly N] [--keep-daily N] [--keep-weekly N] [--keep-monthly N] [--keep-yearly N] [--keep-within DUR] [--dry-run]',
  description:
    "Keeps what any rule keeps: the N newest (--keep-last), the newest of each of the N newest hours,\n" +
    "days, ISO weeks, months or years that have one (UTC), everything within DUR before now (30d, 12h,\n" +
    "1y6m). Without flags the policy is retention.* from the configuration; an empty policy is refused.\n" +
    "Never forgotten: the latest complete snapshot, snapshots held by a tripwire (wbsync snapshots\n" +
    "--release N), and those an unfinished restore or rollback works from. Versions are intervals:\n" +
    "forgetting merges them, so every kept snapshot shows exactly what it showed (export, diff), then\n" +
    "the file shrinks. Activity rows stay unless retention.activityDays says otherwise. --dry-run lists\n" +
    "the snapshots that would go, the version rows and about how many bytes, and writes nothing.\n" +
    "Safe to interrupt: the next prune finishes the job. Runs beside a daemon (short transactions).",
  examples: ['wbsync prune --keep-daily 7 --keep-weekly 5 --keep-monthly 12 --dry-run', 'wbsync prune --keep-last 10 --keep-within 30d'],
  flags: [
    ...RULES.map(([flag]) => ({ name: flag, type: 'number' as const, valueName: 'N', description: `keep by the ${flag.slice(5)} rule` })),
    { name: 'keep-within', type: 'string', valueName: 'DUR', description: 'keep everything taken within DUR before now (e.g. 30d, 12h, 1y6m)' },
    { name: 'dry-run', type: 'boolean', description: 'list what would go; write nothing' },
  ],
  run: async (ctx) => (await import('../actions/prune.js')).runPruneCommand(ctx),
};

// `wbsync diff`: snapshot vs live (default) or vs another snapshot, entity by entity, field by
// field. Exit 0 when equal, 1 when different.
// What it does, loaded only when it runs (its help and flags: ../commands/diff.ts).

import { EXIT_CODES, WbsyncError } from '../../domain/errors.js';
import type { ServiceClient } from '../../api/port.js';
import { formatDiff, runDiff } from '../../restore/index.js';
import { readModuleLive } from '../../sync/live-module.js';
import { kindsFlag } from './rollback.js';
import { intFlag, listFlag, stringFlag } from '../flag-values.js';
import type { CommandContext } from '../command.js';
import { openClient } from '../open.js';
import { openDb } from '../open-db.js';

export async function runDiffCommand(ctx: CommandContext): Promise<number> {
  const flags = ctx.args.flags;
  const snapshotId = intFlag(flags, 'snapshot', 'diff');
  const moduleId = stringFlag(flags, 'module');
  const workspaceId = stringFlag(flags, 'workspace');
  const restoredAs = stringFlag(flags, 'restored');
  if (moduleId && workspaceId) throw new WbsyncError('usage', '--module and --workspace exclude each other', { hint: "see 'wbsync diff --help'" });
  if (restoredAs && !moduleId) throw new WbsyncError('usage', '--restored needs --module', { hint: "see 'wbsync diff --help'" });
  const kinds = kindsFlag(flags);
  const selection = { kinds, columns: listFlag(flags, 'column'), records: listFlag(flags, 'record'), collections: listFlag(flags, 'collection') };
  const narrowed = !!(kinds?.length || selection.columns.length || selection.records.length || selection.collections.length);
  if (narrowed && !moduleId) throw new WbsyncError('usage', '--column, --record, --collection and --kinds need --module', { hint: "see 'wbsync diff --help'" });
  const againstRaw = stringFlag(flags, 'against') ?? (typeof flags.against === 'number' ? String(flags.against) : 'live');
  let against: 'live' | number = 'live';
  if (againstRaw !== 'live') {
    const n = Number(againstRaw);
    if (!Number.isInteger(n) || n < 1) throw new WbsyncError('usage', `--against expects 'live' or a snapshot id, got '${againstRaw}'`, { hint: "see 'wbsync diff --help'" });
    against = n;
  }
  const { config } = ctx.config();
  const store = openDb(ctx, { readonly: against !== 'live' });
  let client: ServiceClient | undefined;
  try {
    if (against === 'live') client = openClient(ctx);
    const report = await runDiff({ client, store, readLive: readModuleLive }, { snapshotId, moduleId, workspaceId, against, restoredAs, attribution: config.restore.attribution, ...(narrowed ? { selection } : {}) });
    if (ctx.json) ctx.emit({ ...report, equal: report.differences === 0 });
    else ctx.say(formatDiff(report));
    return report.differences === 0 ? EXIT_CODES.ok : EXIT_CODES.different;
  } finally {
    store.close();
    await client?.close();
  }
}

// `wbsync prune`: forget the snapshots a retention policy (flags, else `retention.*`) does not
// keep, without changing what any kept snapshot shows; `--dry-run` lists exactly what would go.
// What it does, loaded only when it runs (its help and flags: ../commands/prune.ts).

import { shown } from '../../domain/display-text.js';
import { WbsyncError } from '../../domain/errors.js';
import { isEmptyPolicy, type RetentionPolicy } from '../../store/retention/index.js';
import { prune, type PruneResult } from '../../store/retention/index.js';
import { intFlag, stringFlag } from '../flag-values.js';
import type { CommandContext } from '../command.js';
import { RULES } from '../command-values.js';
import { lockForWrite, openDb } from '../open-db.js';

const mb = (n: number): string => `${(n / 1_048_576).toFixed(1)} MB`;

function lines(r: PruneResult): string[] {
  const out: string[] = [];
  if (r.resumed.length) out.push(`finishing an interrupted prune of snapshots ${r.resumed.join(', ')}`);
  out.push(`${r.dryRun ? 'would forget' : 'forgot'} ${r.forget.length} snapshot(s)${r.forget.length ? ':' : ''}`);
  for (const f of r.forget) out.push(`  ${f.id}  ${f.kind.padEnd(11)} ${f.status.padEnd(8)} ${f.startedAt}`);
  out.push(`kept ${r.keep.length}:`);
  for (const k of r.keep) out.push(`  ${k.id}  ${k.reasons.map(shown).join(', ')}`);
  const rows = Object.entries(r.rows);
  const total = rows.reduce((n, [, v]) => n + v, 0);
  out.push(`version rows ${r.dryRun ? 'to delete' : 'deleted'}: ${total}${rows.length ? ` (${rows.map(([t, n]) => `${t.replace(/_versions$/, '')} ${n}`).join(', ')})` : ''}`);
  out.push(`${r.dryRun ? 'about' : 'file shrank by'} ${mb(r.bytesFreed)}${r.dryRun ? ' freed' : ''}`);
  if (r.compactNote) out.push(`note: ${shown(r.compactNote)}`);
  return out;
}

export async function runPruneCommand(ctx: CommandContext): Promise<number> {
  const policy: RetentionPolicy = {};
  for (const [flag, key] of RULES) {
    const v = intFlag(ctx.args.flags, flag, 'prune');
    if (v !== undefined) policy[key] = v;
  }
  const within = stringFlag(ctx.args.flags, 'keep-within');
  if (within !== undefined) policy.keepWithin = within;
  const { config } = ctx.config();
  const { activityDays, ...configured } = config.retention;
  const chosen = isEmptyPolicy(policy) ? configured : policy;
  if (isEmptyPolicy(chosen)) {
    throw new WbsyncError('usage', 'an empty retention policy would forget every snapshot', { hint: "give at least one --keep-* rule (e.g. --keep-daily 7 --keep-weekly 5), or set retention.* in the configuration; see 'wbsync prune --help'" });
  }
  const dryRun = ctx.args.flags['dry-run'] === true;
  const lock = dryRun ? null : await lockForWrite(ctx, 'prune');
  let store: ReturnType<typeof openDb>;
  try {
    store = openDb(ctx);
  } catch (e) {
    lock?.release();
    throw e;
  }
  try {
    const r = prune(store.db, { policy: chosen, ...(activityDays !== undefined ? { activityDays } : {}), dryRun, now: new Date() });
    if (ctx.json) ctx.emit({ ...r, policy: chosen });
    else ctx.say(lines(r).join('\n'));
    return 0;
  } finally {
    try {
      store.close();
    } finally {
      lock?.release();
    }
  }
}

// `wbsync rollback`: put the selected part of a live module back as it was at a snapshot, in place,
// three-way (fields edited after the damage are conflicts, kept unless --force), through the
// restore journal (run the same command again to resume).
// What it does, loaded only when it runs (its help and flags: ../commands/rollback.ts).

import { shown } from '../../domain/display-text.js';
import { EXIT_CODES, WbsyncError } from '../../domain/errors.js';
import { type FieldChange, rollback, ROLLBACK_KINDS, type RollbackKind, rollbackOfIncident, type RollbackResult, type RollbackTo } from '../../restore/index.js';
import { intFlag, listFlag, stringFlag } from '../flag-values.js';
import type { CommandContext, FlagValues } from '../command.js';
import { runJournaledCommand } from '../open.js';
import { ownerPrefix, repointHow } from './restore-output.js';
import { readModuleLive } from '../../sync/live-module.js';

const usageHint = { hint: "see 'wbsync rollback --help'" };
const show = (v: unknown): string => (v === null || v === undefined ? '(empty)' : JSON.stringify(v).slice(0, 80));

function changeLine(c: FieldChange): string {
  return `  ${c.entity} ${shown(c.label)} (${c.id}) ${shown(c.field)}: ${show(c.live)} → ${show(c.base)}`;
}

function lines(r: RollbackResult): string[] {
  const out = [
    ...(r.incident !== undefined ? [`incident ${r.incident}: the damage pinned to ${r.pinnedTo}`] : []),
    `${r.dryRun ? 'would roll back' : 'rolled back'} module ${shown(r.moduleName)} (${r.moduleId}) to snapshot ${r.snapshot}${r.snapshotTakenAt ? ` (taken ${r.snapshotTakenAt})` : ''}${r.chosenBy === 'to' ? ', the newest complete one at or before --to' : ''}; the damage read from snapshot ${r.afterSnapshot}${r.resumed ? ' (resumed)' : ''}`,
  ];
  const writes = r.writes.filter((w) => !r.conflicts.includes(w));
  out.push(`${r.dryRun ? 'writes' : 'put back'} (${writes.length}):`, ...writes.map(changeLine));
  if (r.conflicts.length) {
    out.push(`conflicts — edited after the damage, ${r.writes.some((w) => r.conflicts.includes(w)) ? 'overwritten (--force)' : 'kept (give --force to overwrite)'} (${r.conflicts.length}):`);
    out.push(...r.conflicts.map((c) => `${changeLine(c)} (${typeof c.later === 'string' ? shown(c.later) : (c.unseen ? 'not seen by any snapshot' : `the damage left ${show(c.after)}`)})`));
    if (r.conflicts.some((c) => c.unseen)) {
      out.push("  (not seen by any snapshot: changed after the latest one. If that is the damage, sync and run again — 'wbsync sync --full' for amendment edits on the deployed service)");
    }
  }
  if (r.newRecords.length) out.push(`records created since the snapshot (${r.newRecords.length}, ${r.newRecords.some((n) => n.archived) ? 'archived' : 'kept; --kinds records archives them'}):`, ...r.newRecords.map((n) => `  ${shown(n.name)} (${n.id})`));
  if (r.wouldTrigger.length) out.push('active automations these writes may set off (give --pause-automations to pause them):', ...r.wouldTrigger.map((a) => `  ${shown(a.name)} (${shown(a.scope)}, on ${shown(a.trigger)})`));
  const cols = r.repointed.columns;
  if (cols.length) {
    out.push(`columns whose settings named what was recreated (${cols.length}):`, ...cols.map((c) => `  ${ownerPrefix(c)}${shown(c.name)} (${c.id}): ${repointHow(c)}`));
  }
  if (r.repointed.automations.length) out.push(`automations naming what was recreated, ${r.dryRun ? 'to be re-pointed' : 're-pointed'} to the copies (${r.repointed.automations.length}):`, ...r.repointed.automations.map((a) => `  ${ownerPrefix(a)}${shown(a.name)} (${a.id})`));
  if (r.pausedAutomations.length) out.push(`paused and re-activated ${r.pausedAutomations.length} automation(s)`);
  if (r.notRestored.length) out.push('not put back:', ...r.notRestored.map((n) => `  - ${n.entity} ${shown(n.label)} (${n.id}): ${shown(n.reason)}${n.value !== undefined ? ` — value ${JSON.stringify(n.value)}` : ''}`));
  for (const w of r.warnings) out.push(`warning: ${shown(w)}`);
  if (!r.dryRun) out.push(`${r.requests} requests in ${(r.durationMs / 1000).toFixed(1)} s`);
  return out;
}

/** --to-snapshot N or --to TIME: exactly one. */
function toFlags(flags: FlagValues): RollbackTo {
  const toSnapshot = intFlag(flags, 'to-snapshot', 'rollback');
  const toTime = stringFlag(flags, 'to');
  if ((toSnapshot === undefined) === (toTime === undefined)) throw new WbsyncError('usage', 'rollback needs exactly one of --to-snapshot N or --to TIME');
  if (toTime === undefined) return { toSnapshot: toSnapshot! };
  if (!Number.isFinite(Date.parse(toTime))) throw new WbsyncError('usage', `--to wants a time (ISO 8601, e.g. 2026-11-24T09:00:00Z), got '${shown(toTime)}'`);
  return { toTime };
}

/** --kinds K,... (rollback's and diff's): known kinds only, a usage error names the unknown one. */
export function kindsFlag(flags: FlagValues): RollbackKind[] | undefined {
  const kinds = stringFlag(flags, 'kinds')?.split(',').map((k) => k.trim()).filter(Boolean);
  if (!kinds?.length) return undefined;
  const unknown = kinds.find((k) => !(ROLLBACK_KINDS as readonly string[]).includes(k));
  if (unknown !== undefined) throw new WbsyncError('usage', `--kinds: unknown kind '${shown(unknown)}'`, { hint: `kinds are ${ROLLBACK_KINDS.join(', ')}` });
  return kinds as RollbackKind[];
}

export async function runRollbackCommand(ctx: CommandContext): Promise<number> {
  const flags = ctx.args.flags;
  const incident = intFlag(flags, 'incident', 'rollback');
  if (incident !== undefined) {
    for (const f of ['module', 'to-snapshot', 'to', 'column', 'record', 'collection', 'kinds', 'changed-by', 'changed-between']) {
      if (flags[f] !== undefined && !(Array.isArray(flags[f]) && (flags[f] as unknown[]).length === 0)) throw new WbsyncError('usage', `--incident pins the module, the snapshot and the damage: --${f} cannot be given with it`, usageHint);
    }
  }
  const flagModule = stringFlag(flags, 'module');
  if (incident === undefined && !flagModule) throw new WbsyncError('usage', 'rollback needs --incident N, or --module ID', usageHint);
  const to = incident === undefined ? toFlags(flags) : undefined;
  const between = listFlag(flags, 'changed-between');
  const changedBetween: [string, string] | undefined = between.length === 2 ? [between[0]!, between[1]!] : undefined;
  if (changedBetween && !(Date.parse(changedBetween[0]) <= Date.parse(changedBetween[1]))) {
    throw new WbsyncError('usage', `--changed-between wants two times, the earlier first (got ${changedBetween.map(shown).join(' ')})`);
  }
  const kinds = kindsFlag(flags);
  const { config } = ctx.config();
  return runJournaledCommand(
    ctx,
    ({ client, store, onProgress }) => {
      const pinned = incident === undefined ? undefined : rollbackOfIncident(store.db, incident);
      return rollback(
        { client, store, logger: ctx.logger(), readLive: readModuleLive },
        {
          moduleId: pinned?.moduleId ?? flagModule!,
          ...(pinned ? { toSnapshot: pinned.toSnapshot } : to!),
          columns: pinned?.columns ?? listFlag(flags, 'column'),
          records: listFlag(flags, 'record'),
          collections: listFlag(flags, 'collection'),
          kinds: pinned ? pinned.kinds : kinds,
          ...(pinned ? { pin: pinned.pin } : {}),
          changedBy: stringFlag(flags, 'changed-by'),
          changedBetween,
          force: flags['force'] === true,
          pauseAutomations: flags['pause-automations'] === true,
          dryRun: flags['dry-run'] === true,
          attribution: config.restore.attribution,
          signal: ctx.signal,
          onProgress,
        },
      );
    },
    lines,
    {
      command: 'rollback',
      dryRun: flags['dry-run'] === true,
      exitOf: (r) => (r.refused || r.conflicts.some((c) => !r.writes.includes(c)) || r.notRestored.length ? EXIT_CODES.partial : EXIT_CODES.ok),
    },
  );
}

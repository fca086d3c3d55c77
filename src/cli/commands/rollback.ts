// `wbsync rollback`: put the selected part of a live module back as it was at a snapshot, in place,
// three-way (fields edited after the damage are conflicts, kept unless --force), through the
// restore journal (run the same command again to resume).

import { shown } from '../../domain/display-text.js';
import { EXIT_CODES, WbsyncError } from '../../domain/errors.js';
import { type FieldChange, rollback, ROLLBACK_KINDS, type RollbackKind, rollbackOfIncident, type RollbackResult, type RollbackTo } from '../../restore/index.js';
import { intFlag, listFlag, stringFlag } from '../flag-values.js';
import type { Command, FlagValues } from '../command.js';
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

export const rollbackCommand: Command = {
  name: 'rollback',
  summary: 'put part of a live module back as it was at a snapshot, in place, keeping later edits',
  usage:
    'wbsync rollback --incident N [--force] [--pause-automations] [--dry-run]\n' +
    '       wbsync rollback --module ID (--to-snapshot N | --to TIME) [--column C]... [--record R]... [--collection C]...\n' +
    '       [--kinds K,...] [--changed-by USER|automation] [--changed-between T1 T2] [--force] [--pause-automations] [--dry-run]',
  description:
    '--incident N is the undo a tripwire offers (its alert, log line, /healthz and the console name it):\n' +
    'pinned to the damage the pass found — the module, the snapshot before it, the snapshot that recorded\n' +
    'it, who did it and when (their feed rows). Only cells whose latest write is the damaging one are\n' +
    'put back; every other write to them — another member\'s fix in the same pass window, a later edit,\n' +
    'synced or not — is a conflict, listed and kept unless --force. Without --incident, a cell the feed\n' +
    'shows changed by one actor and then by another since the snapshot is a conflict too.\n' +
    'Three-way, field by field: the snapshot (what to go back to), the state the damage left (the first\n' +
    'snapshot after --changed-between, else the latest) and the service now. A field the damage changed\n' +
    'and nobody touched since is put back; one edited since is a conflict, listed and kept unless\n' +
    '--force; one already as it was is left alone. Puts back cell values (set, changed or cleared),\n' +
    'record fields (name, collection, position, completion; archived records un-archived in place),\n' +
    'column and collection fields, deleted columns and collections (recreated with new ids, their\n' +
    'cells and records put back into them), records and sub-records deleted since (un-archived in place\n' +
    'where the service still holds them, else recreated with their cells and amendments), amendments deleted\n' +
    'since (posted again with the restore.attribution line, threads kept) and edited ones. Reference\n' +
    "columns and the module's and workspace's automations naming a recreated column or collection are\n" +
    're-pointed to it. Records created since are listed, and archived only when --kinds names records.\n' +
    'Scope: --column (id or name; its cells), --record (with its sub-records), --collection, --kinds\n' +
    '(cells,records,columns,collections,amendments), and what the activity feed shows: --changed-by\n' +
    'USER_ID|automation, --changed-between T1 T2. --dry-run lists every write (before → after), the\n' +
    'conflicts and the automations the writes could set off, and sends only GET requests. Exit 0 done, 5\n' +
    'when conflicts were kept or a write was refused (listed), 6 when refused before writing (the\n' +
    'module is gone, the snapshot does not hold it). Running the same command again resumes.',
  examples: [
    'wbsync rollback --incident 3 --dry-run',
    'wbsync rollback --incident 3',
    'wbsync rollback --module 65f0c0ffee0000000000bbbb --to 2026-11-24T09:00:00Z --column Status --dry-run',
    'wbsync rollback --module 65f0c0ffee0000000000bbbb --to-snapshot 41 --changed-by automation --changed-between 2026-11-24T09:00:00Z 2026-11-24T10:00:00Z --pause-automations',
    'wbsync rollback --module 65f0c0ffee0000000000bbbb --to-snapshot 41 --kinds columns,cells --json',
  ],
  flags: [
    { name: 'incident', type: 'number', valueName: 'N', description: "undo tripwire incident N, pinned to its damage (the tripwire's undo)" },
    { name: 'module', type: 'string', valueName: 'ID', description: 'the live module to roll back' },
    { name: 'to-snapshot', type: 'number', valueName: 'N', description: 'go back to snapshot N' },
    { name: 'to', type: 'string', valueName: 'TIME', description: 'go back to the newest complete snapshot finished at or before TIME' },
    { name: 'column', type: 'list', valueName: 'ID|NAME', description: 'only this column and its cells (repeatable)' },
    { name: 'record', type: 'list', valueName: 'ID', description: 'only this record, its sub-records, cells and amendments (repeatable)' },
    { name: 'collection', type: 'list', valueName: 'ID', description: 'only this collection and what is in it (repeatable)' },
    { name: 'kinds', type: 'string', valueName: 'K,...', description: 'only these kinds: cells,records,columns,collections,amendments' },
    { name: 'changed-by', type: 'string', valueName: 'USER|automation', description: 'only what the feed shows this user (or any automation) changed' },
    { name: 'changed-between', type: 'pair', valueName: 'T1 T2', description: 'only what the feed shows changed between T1 and T2' },
    { name: 'force', type: 'boolean', description: 'also overwrite fields edited after the damage (conflicts)' },
    { name: 'pause-automations', type: 'boolean', description: "pause the module's and the workspace's active automations meanwhile" },
    { name: 'dry-run', type: 'boolean', description: 'list the writes and conflicts, write nothing' },
  ],
  async run(ctx) {
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
  },
};

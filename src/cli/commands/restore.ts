// `wbsync restore module ID`, `wbsync restore records ID…` and `restore workspace ID` (its own file): plan, then apply through a journal
// in the database, so running the same command again resumes without creating anything twice.

import { EXIT_CODES, WbsyncError } from '../../domain/errors.js';
import { restoreModule } from '../../restore/restore-module.js';
import { restoreRecords } from '../../restore/restore-records.js';
import { intFlag, stringFlag } from '../args.js';
import type { Command } from '../command.js';
import { openForRun } from '../open.js';
import { countsLine, notRestoredLines, planLines } from './restore-output.js';
import { runRestoreWorkspace } from './restore-workspace.js';

const usageHint = { hint: "see 'wbsync restore --help'" };

export const restoreCommand: Command = {
  name: 'restore',
  summary: 'recreate a deleted module or a whole workspace, or bring back deleted or archived records',
  usage:
    'wbsync restore module ID [--snapshot N] [--workspace WS] [--as-copy] [--pause-automations] [--dry-run]\n' +
    '       wbsync restore records ID... [--snapshot N] [--collection ID] [--dry-run]\n' +
    '       wbsync restore workspace ID [--snapshot N] [--into-workspace WS | --new-name NAME] [--target-url URL --target-key-file F]\n' +
    '                                   [--map-users FILE] [--pause-automations] [--dry-run]',
  description:
    'module: recreates a deleted module with everything in it from snapshot N (default: the latest one\n' +
    'holding it) — collections, columns of both scopes (settings remapped), records and sub-records in\n' +
    'order, cells, amendment threads (each with a line naming its original author and time, see\n' +
    'restore.attribution), module-access grants and automations (ids remapped, active flag kept).\n' +
    'Ids are new: the journal in the database maps old ids to new ones, and `wbsync diff` uses it to\n' +
    'compare the snapshot with the restored copy. Refused (exit 6, nothing written) when the module\n' +
    'still exists (give --as-copy), when the snapshot does not hold it, or when the key\'s user is not\n' +
    'an owner or admin of the target workspace (probed read-only through GET /module-access).\n' +
    '--pause-automations switches the workspace\'s active recipes off for the restore and on again\n' +
    'after (also after a crash, on the resumed run). Running the same command again resumes.\n' +
    'Lists come back in the order people saw (siblings tied in position are created oldest first).\n' +
    'A write the service refuses (4xx) is listed under "not restored" with its reason and value, the\n' +
    'rest is restored, and the command exits 5; a service that stays down stops it (exit 4, resumable).\n' +
    '\n' +
    'records: un-archives in place the records the service still holds (it archives on delete), or\n' +
    'recreates them in their collection (or --collection) with sub-records, cells and amendments.\n' +
    '\n' +
    'workspace: recreates a whole workspace from snapshot N (default: the latest holding it) — name,\n' +
    'description, icon, banner, members with their roles, every module with everything module restores,\n' +
    'relations between the modules remapped, module-access grants and the workspace\'s automations —\n' +
    'as a new workspace (its name, or --new-name) or into an existing one (--into-workspace). With\n' +
    '--target-url and --target-key-file every write goes to another service (a new instance after the\n' +
    'old one was lost); --map-users FILE (JSON: {"old user id": "new user id"}) maps members, person\n' +
    'cells, grants and recipes; a user the target lacks is reported. Refused (exit 6, nothing written)\n' +
    'when the name is taken on the target, or the target key cannot create workspaces. One journal:\n' +
    'running the same command again resumes.',
  examples: [
    'wbsync restore module 65f0c0ffee0000000000bbbb --dry-run',
    'wbsync restore module 65f0c0ffee0000000000bbbb --pause-automations --json',
    'wbsync restore module 65f0c0ffee0000000000bbbb --as-copy --workspace 65f0c0ffee0000000000aaaa',
    'wbsync restore records 65f0c0ffee0000000000cccc 65f0c0ffee0000000000dddd',
    'wbsync restore workspace 65f0c0ffee0000000000aaaa --dry-run',
    'wbsync restore workspace 65f0c0ffee0000000000aaaa --target-url https://boards.new.example.com --target-key-file ./new.key --map-users users.json',
  ],
  positionals: [
    { name: 'module|records|workspace', description: "what to restore: 'module ID', 'records ID...' or 'workspace ID'", required: true },
    { name: 'ID', description: 'the module or workspace id, or record ids', required: true, variadic: true },
  ],
  flags: [
    { name: 'snapshot', type: 'number', valueName: 'N', description: 'restore from this snapshot (default: the latest holding it)' },
    { name: 'workspace', type: 'string', valueName: 'WS', description: 'module: restore into this workspace' },
    { name: 'as-copy', type: 'boolean', description: 'module: restore even though it still exists, as a new copy' },
    { name: 'pause-automations', type: 'boolean', description: "module, workspace: pause the target workspace's active recipes during the restore" },
    { name: 'collection', type: 'string', valueName: 'ID', description: 'records: recreate into this collection' },
    { name: 'into-workspace', type: 'string', valueName: 'WS', description: 'workspace: restore into this existing workspace' },
    { name: 'new-name', type: 'string', valueName: 'NAME', description: 'workspace: name of the workspace to create (default: the original name)' },
    { name: 'target-url', type: 'string', valueName: 'URL', description: 'workspace: write to this other service' },
    { name: 'target-key-file', type: 'string', valueName: 'FILE', description: "workspace: the other service's key, read from this file" },
    { name: 'map-users', type: 'string', valueName: 'FILE', description: 'workspace: JSON object of old user id → user id on the target' },
    { name: 'dry-run', type: 'boolean', description: 'print the plan and write nothing' },
  ],
  async run(ctx) {
    const [what, ...ids] = ctx.args.positionals;
    const flags = ctx.args.flags;
    if (what !== 'module' && what !== 'records' && what !== 'workspace') throw new WbsyncError('usage', `restore what? expected 'module', 'records' or 'workspace', got '${what ?? ''}'`, usageHint);
    if (!ids.length) throw new WbsyncError('usage', `restore ${what} needs ${what === 'records' ? 'record ids' : `a ${what} id`}`, usageHint);
    if (what !== 'records' && ids.length > 1) throw new WbsyncError('usage', `restore ${what} takes one ${what} id`, usageHint);
    if (what === 'workspace') return runRestoreWorkspace(ctx, ids[0]!, flags);
    const snapshotId = intFlag(flags, 'snapshot', 'restore');
    const dryRun = flags['dry-run'] === true;
    const { config } = ctx.config();
    const run = openForRun(ctx);
    const { client, store } = run;
    try {
      if (what === 'module') {
        const r = await restoreModule(
          { client, store, logger: ctx.logger() },
          {
            moduleId: ids[0],
            snapshotId,
            workspaceId: stringFlag(flags, 'workspace'),
            asCopy: flags['as-copy'] === true,
            pauseAutomations: flags['pause-automations'] === true,
            dryRun,
            attribution: config.restore.attribution,
            signal: ctx.signal,
            onProgress: run.onProgress,
          },
        );
        run.endProgress();
        if (ctx.json) ctx.emit(r);
        else {
          const lines: string[] = [];
          if (r.plan) lines.push(`module ${r.moduleName} (${r.sourceModuleId}) from snapshot ${r.snapshot} into workspace ${r.targetWorkspaceId}`, ...planLines(r.plan));
          else if (r.alreadyRestored) lines.push(`module ${r.moduleName} was already restored by run ${r.runId}: ${r.moduleId}`);
          else lines.push(`restored module ${r.moduleName} (${r.sourceModuleId}) from snapshot ${r.snapshot} as ${r.moduleId}${r.resumed ? ' (resumed)' : ''}`);
          lines.push(`  ${r.plan ? 'would restore' : 'counts'}: ${countsLine(r.counts)}`);
          if (r.pausedAutomations.length) lines.push(`  paused and re-activated ${r.pausedAutomations.length} workspace recipe(s)`);
          if (!r.plan) lines.push(`  ${r.requests} requests in ${(r.durationMs / 1000).toFixed(1)} s`);
          lines.push(...notRestoredLines(r.notRestored));
          ctx.say(lines.join('\n'));
        }
        return r.refused ? EXIT_CODES.partial : EXIT_CODES.ok;
      }
      const r = await restoreRecords({ client, store }, { recordIds: ids, snapshotId, collectionId: stringFlag(flags, 'collection'), dryRun, attribution: config.restore.attribution });
      if (ctx.json) ctx.emit(r);
      else {
        const lines = r.records.map((o) => `${dryRun ? 'would be ' : ''}${o.action}: ${o.name} (${o.id})${o.newId && o.newId !== o.id ? ` → ${o.newId}` : ''}`);
        if (r.plan) lines.push(...planLines(r.plan));
        lines.push(`counts: ${countsLine(r.counts)}`, ...notRestoredLines(r.notRestored));
        ctx.say(lines.join('\n'));
      }
      return r.refused ? EXIT_CODES.partial : EXIT_CODES.ok;
    } finally {
      await run.close();
    }
  },
};

// `wbsync restore module ID`, `wbsync restore records ID…` (and `restore workspace ID`, its own file): plan, then apply through a journal
// in the database, so running the same command again resumes without creating anything twice.

import type { Command } from '../command.js';
import { restoreWorkspaceCommand } from './restore-workspace.js';

const restoreModuleCommand: Command = {
  name: 'module',
  summary: 'recreate a deleted module with everything in it',
  usage: 'wbsync restore module ID [--snapshot N] [--workspace WS] [--as-copy] [--pause-automations] [--dry-run]',
  description:
    'Recreates a deleted module with everything in it from snapshot N (default: the latest one\n' +
    'holding it) — collections, columns of both scopes (settings remapped), records and sub-records in\n' +
    'order, cells, amendment threads (each with a line naming its original author and time, see\n' +
    'restore.attribution), module-access grants and automations (ids remapped, active flag kept).\n' +
    'Ids are new: the journal in the database maps old ids to new ones, and `wbsync diff` uses it to\n' +
    'compare the snapshot with the restored copy. Refused (exit 6, nothing written) when the module\n' +
    'still exists (give --as-copy), when the snapshot does not hold it, or when the key\'s user is not\n' +
    'an owner or admin of the target workspace (probed read-only through GET /module-access).\n' +
    '--pause-automations switches the workspace\'s active automations off for the restore and on again\n' +
    'after (also after a crash, on the resumed run). Running the same command again resumes.\n' +
    'Lists come back in the order people saw (siblings tied in position are created oldest first).\n' +
    'A write the service refuses (4xx) is listed under "not restored" with its reason and value, the\n' +
    'rest is restored, and the command exits 5; a service that stays down stops it (exit 4, resumable).',
  examples: [
    'wbsync restore module 65f0c0ffee0000000000bbbb --dry-run',
    'wbsync restore module 65f0c0ffee0000000000bbbb --pause-automations --json',
    'wbsync restore module 65f0c0ffee0000000000bbbb --as-copy --workspace 65f0c0ffee0000000000aaaa',
  ],
  positionals: [{ name: 'ID', description: 'the id of the module to restore', required: true }],
  flags: [
    { name: 'snapshot', type: 'number', valueName: 'N', description: 'restore from this snapshot (default: the latest holding it)' },
    { name: 'workspace', type: 'string', valueName: 'WS', description: 'restore into this workspace' },
    { name: 'as-copy', type: 'boolean', description: 'restore even though it still exists, as a new copy' },
    { name: 'pause-automations', type: 'boolean', description: "pause the workspace's active automations during the restore" },
    { name: 'dry-run', type: 'boolean', description: 'print the plan and write nothing' },
  ],
  run: async (ctx) => (await import('../actions/restore.js')).runRestoreModuleCommand(ctx),
};

const restoreRecordsCommand: Command = {
  name: 'records',
  summary: 'bring back deleted or archived records into their live module',
  usage: 'wbsync restore records ID... [--snapshot N] [--collection ID] [--dry-run]',
  description:
    'Un-archives in place the records the service still holds (it archives on delete), or recreates\n' +
    'them in their collection (or --collection) with sub-records, cells and amendments, from snapshot N\n' +
    '(default: the latest one holding each). Running the same command again resumes.',
  examples: ['wbsync restore records 65f0c0ffee0000000000cccc 65f0c0ffee0000000000dddd', 'wbsync restore records 65f0c0ffee0000000000cccc --dry-run --json'],
  positionals: [{ name: 'ID', description: 'record ids', required: true, variadic: true }],
  flags: [
    { name: 'snapshot', type: 'number', valueName: 'N', description: 'restore from this snapshot (default: the latest holding them)' },
    { name: 'collection', type: 'string', valueName: 'ID', description: 'recreate into this collection' },
    { name: 'dry-run', type: 'boolean', description: 'print the plan and write nothing' },
  ],
  run: async (ctx) => (await import('../actions/restore.js')).runRestoreRecordsCommand(ctx),
};

export const restoreCommand: Command = {
  name: 'restore',
  summary: 'recreate a deleted module or a whole workspace, or bring back deleted or archived records',
  usage:
    'wbsync restore module ID [--snapshot N] [--workspace WS] [--as-copy] [--pause-automations] [--dry-run]\n' +
    '       wbsync restore records ID... [--snapshot N] [--collection ID] [--dry-run]\n' +
    '       wbsync restore workspace ID [--snapshot N] [--into-workspace WS | --new-name NAME] [--target-url URL --target-key-file F] [--map-users FILE] [--pause-automations] [--dry-run]',
  description:
    'Plans, then applies through a journal in the database: running the same command again after a\n' +
    "crash or a failure resumes and never creates anything twice. --dry-run prints the plan. See\n" +
    "'wbsync restore module --help', 'wbsync restore records --help' and 'wbsync restore workspace --help'.",
  examples: [
    'wbsync restore module 65f0c0ffee0000000000bbbb --dry-run',
    'wbsync restore records 65f0c0ffee0000000000cccc 65f0c0ffee0000000000dddd',
    'wbsync restore workspace 65f0c0ffee0000000000aaaa --dry-run',
  ],
  flags: [],
  subcommands: [restoreModuleCommand, restoreRecordsCommand, restoreWorkspaceCommand],
};

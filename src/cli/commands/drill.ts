// `wbsync drill`: proves the backup restores — snapshot N restored into a scratch service (the
// bundled emulator, or a staging service), read back and compared. Exit 0 only when equal.

import type { Command } from '../command.js';

export const drillCommand: Command = {
  name: 'drill',
  summary: 'restore into a scratch service, read it back and compare (proves the backup restores)',
  usage: 'wbsync drill [--workspace ID]... [--snapshot N] [--dialect observed|spec] [--target-url URL --target-key-file F]',
  description:
    'Copies snapshot N (default: the latest complete one) out of the database, read-only, starts the\n' +
    'bundled emulator on loopback (empty, one user per member of the snapshot), runs `restore workspace`\n' +
    'into it for every workspace (or each --workspace), reads the result back with the sync code into a\n' +
    'scratch database and compares it with the snapshot modulo ids: every module, collection, column,\n' +
    'record, sub-record, cell, amendment thread, automation, member and grant. Prints a table per\n' +
    'workspace. What the service cannot restore (ids, times, amendment authors, run counts, what the restore\n' +
    'plan says it cannot place) is listed with why, not failed. Exit 0 when everything restorable is\n' +
    'equal, 5 when something differs or was refused (named), 6 when there is nothing to drill. The\n' +
    'configured service is never contacted. With --target-url and --target-key-file the restore goes to\n' +
    'that (staging) service instead, under a name of its own; the workspaces stay there for inspection.\n' +
    'Its files live in a private temporary folder, removed afterwards.',
  examples: ['wbsync drill', 'wbsync drill --workspace 65f0c0ffee0000000000aaaa --dialect spec --json', 'wbsync drill --target-url https://boards.staging.example.com --target-key-file ./staging.key'],
  flags: [
    { name: 'workspace', type: 'list', valueName: 'ID', description: 'only this workspace (repeatable; default: all in the snapshot)' },
    { name: 'snapshot', type: 'number', valueName: 'N', description: 'drill this snapshot (default: the latest complete one)' },
    { name: 'dialect', type: 'string', valueName: 'D', choices: ['observed', 'spec'], description: 'dialect of the bundled emulator (default: drill.dialect)' },
    { name: 'target-url', type: 'string', valueName: 'URL', description: 'restore into this staging service instead of the bundled emulator' },
    { name: 'target-key-file', type: 'string', valueName: 'FILE', description: "the staging service's key, read from this file" },
  ],
  run: async (ctx) => (await import('../actions/drill.js')).runDrillCommand(ctx),
};

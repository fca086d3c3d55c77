// `wbsync sync`: one pass, incremental when cursors exist, else full.

import type { Command } from '../command.js';

export const syncCommand: Command = {
  name: 'sync',
  summary: 'one pass: incremental when a cursor exists, else full',
  usage: 'wbsync sync [--full] [--workspace ID]... [--accept-loss]',
  description:
    'Mirrors every workspace the key can see into the snapshot database. Without --full, workspaces\n' +
    'with a stored activity cursor are synced incrementally (what changed since the last pass).\n' +
    'Every pass runs the tripwire: a mass change is recorded as an incident (the snapshot before is\n' +
    'held, the undo printed and alerted). A workspace whose everything vanished at once (the key\n' +
    'lost access, most likely) is held — nothing marked gone, exit 5 — until --accept-loss.',
  examples: ['wbsync sync --full', 'wbsync sync --workspace 65f0c0ffee0000000000aaaa --json'],
  flags: [
    { name: 'full', type: 'boolean', description: 'read everything, not only what changed' },
    { name: 'workspace', type: 'list', valueName: 'ID', description: 'only this workspace (repeatable)' },
    { name: 'accept-loss', type: 'boolean', description: 'record a workspace whose every module vanished at once as gone (else the pass holds it)' },
  ],
  run: async (ctx) => (await import('../actions/sync.js')).runSyncCommand(ctx),
};

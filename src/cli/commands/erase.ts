// `wbsync erase`: remove a person, records or a module from every version (bytes included), keep a
// ledger that restores and syncs honour; `--lift ID` takes an entry off the ledger.

import type { Command } from '../command.js';

export const eraseCommand: Command = {
  name: 'erase',
  summary: 'remove a person, records or a module from every version, bytes included; keep a ledger of it',
  usage: 'wbsync erase --user ID | --record ID… | --module ID [--dry-run] [--reason TEXT] [--offsite], wbsync erase --lift ID',
  description:
    '--user: the person\'s membership and grants, their name and email wherever they appear, their id in\n' +
    'person cells, @-mentions of them, and the text of their amendments (replaced by "[erased]"; threads\n' +
    'stay). --record: the record with its sub-records, cells and amendments, and the activity rows that\n' +
    'quote it. --module: the module and everything in it. Every version of every snapshot is rewritten,\n' +
    'the search index too; deleted bytes are zeroed (secure_delete), freed pages given back and the WAL\n' +
    'checkpointed to zero length. A ledger (ids, time, reason; never content) makes restores skip what\n' +
    'was erased and syncs refuse to store it again while it is still live on the service (a warning each\n' +
    'pass) until --lift ID. --dry-run shows counts per table and per snapshot and changes nothing.\n' +
    'Offsite copies made before still hold the data: they are listed; --offsite pushes a fresh copy and\n' +
    'then deletes the older ones. Beside a daemon it waits for the pass in flight and runs between its\n' +
    'passes; safe to interrupt: the next wbsync erase finishes the job. Keep --reason free of the erased content (e.g. a ticket number).',
  examples: ['wbsync erase --user 27aa7bb7a3eb4d2a00000002 --dry-run', 'wbsync erase --record 483496ca0cdcfdc20000006e --reason "request 2026-114"', 'wbsync erase --lift 483496ca0cdcfdc20000006e'],
  positionals: [{ name: 'ID', description: 'more record ids (after --record)', variadic: true }],
  flags: [
    { name: 'user', type: 'string', valueName: 'ID', description: 'erase a person (their user id)' },
    { name: 'record', type: 'list', valueName: 'ID', description: 'erase a record with its sub-records (repeatable)' },
    { name: 'module', type: 'string', valueName: 'ID', description: 'erase a module with everything in it' },
    { name: 'dry-run', type: 'boolean', description: 'show counts per table and per snapshot; change nothing' },
    { name: 'reason', type: 'string', valueName: 'TEXT', description: 'kept in the ledger (not the erased content: e.g. a ticket number)' },
    { name: 'offsite', type: 'boolean', description: 'then push a fresh offsite copy and delete the older ones' },
    { name: 'lift', type: 'string', valueName: 'ID', description: 'take an entry off the ledger: the next sync stores the entity again' },
  ],
  run: async (ctx) => (await import('../actions/erase.js')).runEraseCommand(ctx),
};

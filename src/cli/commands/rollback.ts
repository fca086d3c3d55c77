// `wbsync rollback`: put the selected part of a live module back as it was at a snapshot, in place,
// three-way (fields edited after the damage are conflicts, kept unless --force), through the
// restore journal (run the same command again to resume).

import type { Command } from '../command.js';

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
  run: async (ctx) => (await import('../actions/rollback.js')).runRollbackCommand(ctx),
};

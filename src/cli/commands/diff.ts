// `wbsync diff`: snapshot vs live (default) or vs another snapshot, entity by entity, field by
// field. Exit 0 when equal, 1 when different.

import type { Command } from '../command.js';

export const diffCommand: Command = {
  name: 'diff',
  summary: 'what differs between a snapshot and the live service (or another snapshot)',
  usage: 'wbsync diff [--snapshot N] [--module ID | --workspace ID] [--against live | --against M] [--restored NEW]\n       [--column C]... [--record R]... [--collection C]... [--kinds K,...]',
  description:
    'Compares snapshot N (default: the latest complete one) with the live service, or with snapshot M\n' +
    '(offline), entity by entity and field by field: added, removed, changed (before → after); cells\n' +
    'by value. Volatile fields (updatedAt, counts, presence, run counts, last errors) are ignored.\n' +
    'Archived records cannot be listed live, so a live comparison skips those archived in the snapshot.\n' +
    '\n' +
    'Restored modules: a module deleted live but restored by wbsync is compared with its restored copy\n' +
    "through the restore journal's id map (old id → new id, recorded as each object was created), so a\n" +
    'faithful restore shows no difference; amendment authors and times (the restorer\'s, by design) and\n' +
    'the attribution line are not counted. --module OLD --restored NEW compares OLD from the snapshot\n' +
    'with any live module NEW, matching by shape (names, scopes, order) where the journal is silent.\n' +
    '\n' +
    'After a rollback: --module ID --snapshot N with the rollback\'s --column/--record/--collection/--kinds\n' +
    'limits the comparison to what it put back (objects it recreated pair through its journal), so\n' +
    'what still differs is what it kept: the conflicts it listed.\n' +
    'Exit 0 when there is no difference, 1 when there is.',
  examples: [
    'wbsync diff',
    'wbsync diff --module 65f0c0ffee0000000000bbbb --json',
    'wbsync diff --snapshot 3 --against 7',
    'wbsync diff --module OLD --restored NEW',
    'wbsync diff --module 65f0c0ffee0000000000bbbb --snapshot 41 --column Status',
  ],
  flags: [
    { name: 'snapshot', type: 'number', valueName: 'N', description: 'the snapshot to compare (default: latest complete)' },
    { name: 'module', type: 'string', valueName: 'ID', description: 'only this module' },
    { name: 'workspace', type: 'string', valueName: 'ID', description: 'only this workspace' },
    { name: 'against', type: 'string', valueName: 'live|M', description: "'live' (default) or a snapshot id" },
    { name: 'restored', type: 'string', valueName: 'NEW', description: 'with --module: the live module restored from it' },
    { name: 'column', type: 'list', valueName: 'ID|NAME', description: 'with --module: only this column and its cells (repeatable)' },
    { name: 'record', type: 'list', valueName: 'ID', description: 'with --module: only this record, its sub-records, cells and amendments (repeatable)' },
    { name: 'collection', type: 'list', valueName: 'ID', description: 'with --module: only this collection and what is in it (repeatable)' },
    { name: 'kinds', type: 'string', valueName: 'K,...', description: 'with --module: only cells,records,columns,collections,amendments' },
  ],
  run: async (ctx) => (await import('../actions/diff.js')).runDiffCommand(ctx),
};

// `wbsync snapshots`: the list of snapshots with their status, counts and re-verification.

import type { Command } from '../command.js';

export const snapshotsCommand: Command = {
  name: 'snapshots',
  summary: 'list snapshots: id, kind, status, started/finished, counts, held ones marked',
  usage: 'wbsync snapshots [--release N]',
  description:
    'Lists every snapshot in the database, oldest first, with what each incremental pass re-read in full for the freshness window (freshness.maxStalenessMinutes).\n' +
    'A snapshot held by a tripwire (the last one before mass changes) is marked HELD: prune keeps it for 30 days.\n' +
    '--release N lets a held snapshot be pruned again (once the damage is undone, or was intended).',
  examples: ['wbsync snapshots', 'wbsync snapshots --json --db ./data/wbsync.db', 'wbsync snapshots --release 42'],
  flags: [{ name: 'release', type: 'number', valueName: 'N', description: 'release snapshot N held by a tripwire (prune may then forget it)' }],
  run: async (ctx) => (await import('../actions/snapshots.js')).runSnapshotsCommand(ctx),
};

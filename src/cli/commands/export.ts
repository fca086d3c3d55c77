// `wbsync export`: a standalone SQLite copy whose views show one snapshot.

import { WbsyncError } from '../../domain/errors.js';
import { intFlag, stringFlag } from '../flag-values.js';
import type { Command } from '../command.js';
import { openDb } from '../open.js';

export const exportCommand: Command = {
  name: 'export',
  summary: 'write a consistent standalone SQLite file as of a snapshot (mode 0600)',
  usage: 'wbsync export --out FILE [--snapshot N]',
  description:
    'Copies the database consistently (safe while a daemon writes) into FILE, trimmed so that its\n' +
    'views show snapshot N (default: the latest complete one). The file is created with mode 0600.',
  examples: ['wbsync export --out backup.db', 'wbsync export --out as-of-12.db --snapshot 12'],
  flags: [
    { name: 'out', type: 'string', valueName: 'FILE', description: 'the file to write (must not exist)' },
    { name: 'snapshot', type: 'number', valueName: 'N', description: 'snapshot to show (default: latest complete)' },
  ],
  async run(ctx) {
    const out = stringFlag(ctx.args.flags, 'out');
    if (!out) throw new WbsyncError('usage', 'export needs --out FILE', { hint: "see 'wbsync export --help'" });
    const snapshot = intFlag(ctx.args.flags, 'snapshot', 'export');
    const store = openDb(ctx, { readonly: true });
    try {
      const target = snapshot ?? store.latestCompleteSnapshot();
      if (target === null) throw new WbsyncError('usage', 'there is no complete snapshot to export yet', { hint: 'run `wbsync sync` first' });
      const info = store.getSnapshot(target);
      if (!info) throw new WbsyncError('usage', `snapshot ${target} does not exist`, { hint: 'list them with `wbsync snapshots`' });
      await store.exportTo(out, target);
      if (ctx.json) ctx.emit({ out, snapshot: target });
      else ctx.say(`exported snapshot ${target} (${info.kind}, ${info.status}) to ${out}`);
      return 0;
    } finally {
      store.close();
    }
  },
};

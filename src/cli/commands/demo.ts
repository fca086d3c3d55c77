// `wbsync demo`: the newcomer tour on the bundled emulator — mirror, query, delete a board,
// restore it, and show that nothing differs; undo a bulk overwrite in place, keeping a later edit —
// then how to point wbsync at a real service.

import type { Command } from '../command.js';
import { DEMO_DB, DEMO_MODULE, ROLLBACK_COLUMN, ROLLBACK_MODULE } from '../command-values.js';

export const demoCommand: Command = {
  name: 'demo',
  summary: 'the newcomer tour on the bundled emulator (no configuration needed)',
  usage: 'wbsync demo',
  description:
    `Starts the emulator in-process with the demo seed, runs a full sync into ${DEMO_DB} (replacing\n` +
    'an earlier demo database), prints what it mirrored and a few reporting queries, deletes the\n' +
    `"${DEMO_MODULE}" module, restores it from the snapshot, and shows that diff finds nothing left;\n` +
    `then an import overwrites "${ROLLBACK_COLUMN}" on every row of "${ROLLBACK_MODULE}", someone fixes one row by\n` +
    'hand, and rollback puts the rest back in place while keeping that later edit.',
  examples: ['wbsync demo', 'wbsync demo --json'],
  flags: [],
  run: async (ctx) => (await import('../actions/demo.js')).runDemoCommand(ctx),
};

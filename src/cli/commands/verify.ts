// `wbsync verify`: integrity and history checks; non-zero on any problem.

import type { Command } from '../command.js';

export const verifyCommand: Command = {
  name: 'verify',
  summary: 'check the database: integrity, history consistency, orphans',
  usage: 'wbsync verify',
  description: 'Runs SQLite integrity checks and checks every entity history. Exits 0 when clean, 5 on any problem.',
  examples: ['wbsync verify', 'wbsync verify --json --db backup.db'],
  flags: [],
  run: async (ctx) => (await import('../actions/verify.js')).runVerifyCommand(ctx),
};

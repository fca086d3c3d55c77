// `wbsync verify`: integrity and history checks; non-zero on any problem.

import { shown } from '../../domain/display-text.js';
import { EXIT_CODES } from '../../domain/errors.js';
import type { Command } from '../command.js';
import { openDb } from '../open.js';

export const verifyCommand: Command = {
  name: 'verify',
  summary: 'check the database: integrity, history consistency, orphans',
  usage: 'wbsync verify',
  description: 'Runs SQLite integrity checks and checks every entity history. Exits 0 when clean, 5 on any problem.',
  examples: ['wbsync verify', 'wbsync verify --json --db backup.db'],
  flags: [],
  async run(ctx) {
    const store = openDb(ctx, { readonly: true });
    try {
      const report = store.verify();
      if (ctx.json) ctx.emit(report);
      else {
        ctx.say(`checks: ${report.checks.join(', ')}`);
        ctx.say(report.ok ? 'ok: no problem found' : `${report.problems.length} problem(s):`);
        for (const p of report.problems) ctx.say(`  - ${p.check}: ${shown(p.message)}`);
        for (const w of report.warnings ?? []) ctx.say(`  warning: ${w.check}: ${shown(w.message)}`);
      }
      return report.ok ? EXIT_CODES.ok : EXIT_CODES.partial;
    } finally {
      store.close();
    }
  },
};

// `wbsync verify`: integrity and history checks; non-zero on any problem.
// What it does, loaded only when it runs (its help and flags: ../commands/verify.ts).

import { shown } from '../../domain/display-text.js';
import { EXIT_CODES } from '../../domain/errors.js';
import type { CommandContext } from '../command.js';
import { openDb } from '../open-db.js';

export async function runVerifyCommand(ctx: CommandContext): Promise<number> {
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
}

// `wbsync offsite push | list | fetch | verify`: age-encrypted copies of the latest snapshot in
// S3-compatible storage. The daemon's host holds only public keys; --identity is read at recovery.
// What it does, loaded only when it runs (its help and flags: ../commands/offsite.ts).

import { readFileSync } from 'node:fs';
import { shown } from '../../domain/display-text.js';
import { EXIT_CODES, WbsyncError } from '../../domain/errors.js';
import { parseIdentities } from '../../offsite/age-stream.js';
import { objectStoreOf } from '../../offsite/object-store.js';
import { fetchCopy, listCopies, pruneCopies, pushCopy, verifyCopies } from '../../offsite/offsite.js';
import { intFlag, stringFlag } from '../flag-values.js';
import type { CommandContext } from '../command.js';
import { openDb } from '../open-db.js';
import { createProgressLine } from '../progress.js';

const usageHint = { hint: "see 'wbsync offsite --help'" };

function identitiesOf(ctx: CommandContext, required: boolean): string[] {
  const file = stringFlag(ctx.args.flags, 'identity');
  if (!file) {
    if (required) throw new WbsyncError('usage', 'offsite fetch needs --identity FILE (the age secret key; the daemon never holds it)', usageHint);
    return [];
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new WbsyncError('usage', `--identity ${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return parseIdentities(text, file);
}

const mb = (n: number): string => `${(n / 1_048_576).toFixed(1)} MB`;

export async function runOffsiteCommand(ctx: CommandContext): Promise<number> {
  const [what, ...rest] = ctx.args.positionals;
  if (!['push', 'list', 'fetch', 'verify'].includes(what ?? '')) throw new WbsyncError('usage', `offsite what? expected push, list, fetch or verify, got '${what ?? ''}'`, usageHint);
  if (rest.length) throw new WbsyncError('usage', `offsite ${what} takes no more arguments (got '${rest.join(' ')}')`, usageHint);
  const { config } = ctx.config();
  const prefix = config.offsite.prefix;
  if (what === 'fetch' && !stringFlag(ctx.args.flags, 'out')) throw new WbsyncError('usage', 'offsite fetch needs --out FILE', usageHint);
  const identities = identitiesOf(ctx, what === 'fetch');
  const objects = objectStoreOf(config.offsite);
  const progress = createProgressLine(ctx.stderr, !ctx.json);
  const started = Date.now();
  const onBytes = (bytes: number, total: number): void =>
    progress.show(`${what} ${mb(bytes)} of ${mb(total)} (${Math.min(100, Math.round((bytes * 100) / Math.max(1, total)))}%, ${((Date.now() - started) / 1000).toFixed(0)} s)`, false);
  try {
    if (what === 'push') {
      const store = openDb(ctx, { readonly: true });
      try {
        const m = await pushCopy(store, objects, { prefix, recipients: config.offsite.recipients }, new Date(), onBytes);
        progress.done();
        const { keepLast, keepDaily, keepWeekly, keepMonthly, keepYearly } = config.offsite.retention;
        const forgotten = await pruneCopies(objects, prefix, { keepLast, keepDaily, keepWeekly, keepMonthly, keepYearly }, new Date());
        if (ctx.json) ctx.emit({ ...m, forgotten });
        else ctx.say([`pushed snapshot ${m.snapshot} to ${shown(objects.where)}: ${mb(m.bytes)} encrypted (${mb(m.plainBytes)} plain), SHA-256 ${m.sha256}`, ...(forgotten.length ? [`forgot older copies of snapshots ${forgotten.join(', ')}`] : [])].join('\n'));
      } finally {
        store.close();
      }
      return EXIT_CODES.ok;
    }
    if (what === 'list') {
      const copies = await listCopies(objects, prefix);
      if (ctx.json) ctx.emit({ where: objects.where, copies });
      else ctx.say(copies.length ? copies.map((c) => `snapshot ${c.snapshot}  taken ${c.takenAt}  pushed ${c.pushedAt}  ${mb(c.bytes)}  ${shown(c.object)}`).join('\n') : `no copies at ${shown(objects.where)}`);
      return EXIT_CODES.ok;
    }
    if (what === 'fetch') {
      const out = stringFlag(ctx.args.flags, 'out')!;
      const snapshot = intFlag(ctx.args.flags, 'snapshot', 'offsite');
      const m = await fetchCopy(objects, prefix, { ...(snapshot !== undefined ? { snapshot } : {}), identities, out, onBytes });
      progress.done();
      if (ctx.json) ctx.emit({ ...m, out });
      else ctx.say(`fetched snapshot ${m.snapshot} (taken ${m.takenAt}) into ${shown(out)}: SHA-256 checked, decrypted, database checked`);
      return EXIT_CODES.ok;
    }
    const checks = await verifyCopies(objects, prefix, identities);
    if (ctx.json) ctx.emit({ where: objects.where, copies: checks });
    else ctx.say(checks.length ? checks.map((c) => `${c.ok ? 'ok ' : 'BAD'} snapshot ${c.snapshot}${c.decrypted ? ' (decrypted)' : ''}  ${shown(c.object)}${c.problem ? `: ${shown(c.problem)}` : ''}`).join('\n') : `no copies at ${shown(objects.where)}`);
    return checks.every((c) => c.ok) ? EXIT_CODES.ok : EXIT_CODES.partial;
  } finally {
    progress.done();
    objects.close();
  }
}

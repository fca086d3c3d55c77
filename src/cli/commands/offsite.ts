// `wbsync offsite push | list | fetch | verify`: age-encrypted copies of the latest snapshot in
// S3-compatible storage. The daemon's host holds only public keys; --identity is read at recovery.

import { readFileSync } from 'node:fs';
import { shown } from '../../domain/display-text.js';
import { EXIT_CODES, WbsyncError } from '../../domain/errors.js';
import { parseIdentities } from '../../offsite/age-stream.js';
import { objectStoreOf } from '../../offsite/object-store.js';
import { fetchCopy, listCopies, pruneCopies, pushCopy, verifyCopies } from '../../offsite/offsite.js';
import { intFlag, stringFlag } from '../flag-values.js';
import type { Command, CommandContext } from '../command.js';
import { openDb } from '../open.js';
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

export const offsiteCommand: Command = {
  name: 'offsite',
  summary: 'age-encrypted copies in S3-compatible storage: push, list, fetch, verify',
  usage: 'wbsync offsite push | list | fetch [--snapshot N] --identity FILE --out FILE | verify [--identity FILE]',
  description:
    'push: a consistent copy of the latest complete snapshot (what export makes), streamed through age\n' +
    'encryption to offsite.recipients (public keys) into offsite.bucket under offsite.prefix, with a\n' +
    'manifest (snapshot, time, sizes, SHA-256 of the ciphertext, counts); then offsite.retention.* forgets\n' +
    'older copies (never the newest). The daemon pushes after each full pass (offsite.afterFullPass).\n' +
    'list: the copies, oldest first. fetch: downloads one (the newest, or --snapshot N), checks its\n' +
    'SHA-256, decrypts it with --identity FILE (the age secret key, read only now) into --out FILE (0600,\n' +
    'never overwritten) and checks the database. verify: every copy\'s SHA-256 against its manifest;\n' +
    'with --identity, the newest is also read back in full. Credentials: the standard AWS environment\n' +
    'variables or files, never the configuration or a flag. Exit 5 when verify finds a bad copy.',
  examples: ['wbsync offsite push', 'wbsync offsite list', 'wbsync offsite fetch --identity ./backup-key.txt --out restored.db', 'wbsync offsite verify --identity ./backup-key.txt'],
  positionals: [{ name: 'push|list|fetch|verify', description: 'what to do', required: true }],
  flags: [
    { name: 'snapshot', type: 'number', valueName: 'N', description: 'fetch: the copy of this snapshot (default: the newest)' },
    { name: 'identity', type: 'string', valueName: 'FILE', description: 'fetch, verify: the age identity (secret key) file' },
    { name: 'out', type: 'string', valueName: 'FILE', description: 'fetch: where to write the decrypted database' },
  ],
  async run(ctx) {
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
  },
};

// `wbsync erase`: remove a person, records or a module from every version (bytes included), keep a
// ledger that restores and syncs honour; `--lift ID` takes an entry off the ledger.
// What it does, loaded only when it runs (its help and flags: ../commands/erase.ts).

import { shown } from '../../domain/display-text.js';
import { EXIT_CODES, WbsyncError } from '../../domain/errors.js';
import { checkTargets, erase, type EraseResult } from '../../store/erasure/index.js';
import { copiesHoldingErased, replaceCopies, type CopyRef, type ReplaceResult } from '../../offsite/erased-copies.js';
import type { Target } from '../../store/erasure/index.js';
import { objectStoreOf } from '../../offsite/object-store.js';
import { liftErasure, listErasures } from '../../store/erasure/index.js';
import { listFlag, stringFlag } from '../flag-values.js';
import type { CommandContext } from '../command.js';
import { lockForWrite, openDb } from '../open-db.js';

const usageHint = { hint: "give --user ID, --record ID… or --module ID, or --lift ID; see 'wbsync erase --help'" };

function targetsOf(ctx: CommandContext): Target[] {
  const f = ctx.args.flags;
  const out: Target[] = [];
  const user = stringFlag(f, 'user');
  const mod = stringFlag(f, 'module');
  const listed = listFlag(f, 'record');
  if (ctx.args.positionals.length && listed.length === 0) throw new WbsyncError('usage', `unexpected argument '${ctx.args.positionals[0]}': record ids follow --record`, usageHint);
  const records = [...listed, ...ctx.args.positionals];
  if (user !== undefined) out.push({ kind: 'user', id: user });
  for (const r of records) out.push({ kind: 'record', id: r });
  if (mod !== undefined) out.push({ kind: 'module', id: mod });
  for (const t of out) if (!/^[A-Za-z0-9_-]{4,64}$/.test(t.id)) throw new WbsyncError('usage', `--${t.kind} ${JSON.stringify(t.id)} is not an id`, usageHint);
  return out;
}

function lines(r: EraseResult, offsite: { copies: CopyRef[] | null; replaced?: ReplaceResult; error?: string }): string[] {
  const out: string[] = [];
  if (r.resumed.length) out.push(`finished interrupted erasure(s): ${r.resumed.map((x) => `${x.kind} ${x.id}`).join(', ')}`);
  out.push(`${r.dryRun ? 'would erase' : 'erased'} ${r.targets.map((t) => `${t.kind} ${t.id}`).join(', ')}${Object.keys(r.selected).length ? ` (with ${Object.entries(r.selected).map(([k, n]) => `${n} ${k}(s)`).join(', ')})` : ''}`);
  const tables = Object.entries(r.tables);
  out.push(`version rows ${r.dryRun ? 'to delete / rewrite' : 'deleted / rewritten'}:${tables.length ? '' : ' none'}`);
  for (const [t, c] of tables) out.push(`  ${t.replace(/_versions$/, '').padEnd(14)} ${String(c.deleted).padStart(7)} / ${c.rewritten}`);
  const snaps = Object.entries(r.snapshots);
  if (snaps.length) out.push(`snapshots showing it: ${snaps.length} (${snaps.map(([id, n]) => `${id}: ${n}`).join(', ')})`);
  if (!r.dryRun) {
    out.push(`rewrite ${(r.timings.rewriteMs / 1000).toFixed(1)} s (longest transaction ${r.timings.longestTransactionMs.toFixed(0)} ms), file rewrite (VACUUM + WAL checkpoint) ${(r.timings.compactMs / 1000).toFixed(1)} s${r.complete ? '' : ' — NOT done, see the note'}`);
    out.push('the ledger keeps the ids (no content): restores skip them, syncs do not store them again until wbsync erase --lift ID');
  }
  if (r.note) out.push(`note: ${shown(r.note)}`);
  if (offsite.replaced) {
    out.push(`offsite: pushed a fresh copy of snapshot ${offsite.replaced.pushed.snapshot}; deleted ${offsite.replaced.deleted.length} older copie(s)`);
  } else if (offsite.copies) {
    out.push(offsite.copies.length ? `offsite copies still holding the erased data (${offsite.copies.length}): ${offsite.copies.map((c) => `snapshot ${c.snapshot} pushed ${c.pushedAt}`).join(', ')}${r.dryRun ? '' : ' — replace them with --offsite, or they age out under offsite.retention'}` : 'offsite: no copies');
  }
  if (offsite.error) out.push(`offsite: ${shown(offsite.error)}`);
  return out;
}

/** Reading only (a dry run, the target check); a database not yet migrated is opened read-write once. */
function openForDryRun(ctx: CommandContext): ReturnType<typeof openDb> {
  try {
    return openDb(ctx, { readonly: true });
  } catch (e) {
    if (e instanceof WbsyncError && /schema is behind/.test(e.message)) return openDb(ctx);
    throw e;
  }
}

async function lift(ctx: CommandContext, id: string): Promise<number> {
  const lock = await lockForWrite(ctx, 'erase');
  let store: ReturnType<typeof openDb>;
  try {
    store = openDb(ctx);
  } catch (e) {
    lock.release();
    throw e;
  }
  try {
    const lifted = liftErasure(store.db, id, new Date().toISOString());
    if (lifted.length === 0) {
      const known = listErasures(store.db).filter((e) => e.liftedAt === null).map((e) => `${e.kind} ${e.entityId}`);
      throw new WbsyncError('usage', `no active erasure of ${id} in the ledger`, { hint: known.length ? `active: ${known.join(', ')}` : 'the ledger is empty' });
    }
    if (ctx.json) ctx.emit({ lifted });
    else ctx.say(`lifted ${lifted.map((e) => `${e.kind} ${e.entityId}`).join(', ')}: the next sync stores it again (what was erased stays erased)`);
    return EXIT_CODES.ok;
  } finally {
    store.close();
    lock.release();
  }
}

export async function runEraseCommand(ctx: CommandContext): Promise<number> {
  const liftId = stringFlag(ctx.args.flags, 'lift');
  const targets = targetsOf(ctx);
  if (liftId !== undefined) {
    if (targets.length) throw new WbsyncError('usage', '--lift cannot be combined with a target', usageHint);
    return lift(ctx, liftId);
  }
  if (targets.length === 0) throw new WbsyncError('usage', 'erase needs a target', usageHint);
  const dryRun = ctx.args.flags['dry-run'] === true;
  const wantOffsite = ctx.args.flags['offsite'] === true;
  if (wantOffsite && dryRun) throw new WbsyncError('usage', '--offsite and --dry-run do not go together (the dry run already lists the copies)', usageHint);
  const { config } = ctx.config();
  if (wantOffsite && !config.offsite.bucket) throw new WbsyncError('config', '--offsite needs offsite.bucket in the configuration', { hint: 'configure offsite (see wbsync offsite --help), or leave --offsite out' });
  // a target the database never held is refused before anything opens it for writing
  const check = openForDryRun(ctx);
  try {
    checkTargets(check.db, targets);
  } finally {
    if (!dryRun) check.close();
  }
  // the write lock for the whole erasure: beside a daemon it waits for the pass in flight, and
  // the daemon's next pass waits for it, so the file rewrite (VACUUM) always happens now
  const lock = dryRun ? null : await lockForWrite(ctx, 'erase');
  let store: ReturnType<typeof openDb>;
  try {
    store = dryRun ? check : openDb(ctx);
  } catch (e) {
    lock?.release();
    throw e;
  }
  try {
    const exclusive = (): { release: () => void } => ({ release: () => undefined });
    const r = erase(store.db, { targets, dryRun, reason: stringFlag(ctx.args.flags, 'reason') ?? null, now: () => new Date(), exclusive });
    const off: { copies: CopyRef[] | null; replaced?: ReplaceResult; error?: string } = { copies: null };
    if (config.offsite.bucket) {
      const objects = objectStoreOf(config.offsite);
      try {
        if (wantOffsite) off.replaced = await replaceCopies(store, objects, { prefix: config.offsite.prefix, recipients: config.offsite.recipients }, new Date());
        else off.copies = await copiesHoldingErased(objects, config.offsite.prefix);
      } catch (e) {
        off.error = `${(e as Error).message} (the local erasure is complete; older copies were left in place)`;
      } finally {
        objects.close();
      }
    }
    if (ctx.json) ctx.emit({ ...r, offsite: off });
    else ctx.say(lines(r, off).join('\n'));
    return (off.error && wantOffsite) || (!dryRun && !r.complete) ? EXIT_CODES.partial : EXIT_CODES.ok;
  } finally {
    store.close();
    lock?.release();
  }
}

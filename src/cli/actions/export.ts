// `wbsync export`: a standalone SQLite copy whose views show one snapshot, or (--format csv|jsonl)
// one plain file per view in a folder.
// What it does, loaded only when it runs (its help and flags: ../commands/export.ts).

import { shown } from '../../domain/display-text.js';
import { WbsyncError } from '../../domain/errors.js';
import { intFlag, stringFlag } from '../flag-values.js';
import type { CommandContext } from '../command.js';
import { openDb } from '../open-db.js';

const FORMATS = ['sqlite', 'csv', 'jsonl'] as const;
type Format = (typeof FORMATS)[number];

function formatFlag(value: string | undefined): Format {
  if (value === undefined) return 'sqlite';
  if ((FORMATS as readonly string[]).includes(value)) return value as Format;
  throw new WbsyncError('usage', `--format must be one of ${FORMATS.join(', ')}, got '${value}'`, { hint: "see 'wbsync export --help'" });
}

export async function runExportCommand(ctx: CommandContext): Promise<number> {
  const format = formatFlag(stringFlag(ctx.args.flags, 'format'));
  const out = stringFlag(ctx.args.flags, 'out');
  if (!out) throw new WbsyncError('usage', `export needs --out ${format === 'sqlite' ? 'FILE' : 'FOLDER'}`, { hint: "see 'wbsync export --help'" });
  const snapshot = intFlag(ctx.args.flags, 'snapshot', 'export');
  const store = openDb(ctx, { readonly: true });
  try {
    const target = snapshot ?? store.latestCompleteSnapshot();
    if (target === null) throw new WbsyncError('usage', 'there is no complete snapshot to export yet', { hint: 'run `wbsync sync` first' });
    const info = store.getSnapshot(target);
    if (!info) throw new WbsyncError('usage', `snapshot ${target} does not exist`, { hint: 'list them with `wbsync snapshots`' });
    if (format === 'sqlite') {
      await store.exportTo(out, target);
      if (ctx.json) ctx.emit({ out, snapshot: target, format });
      else ctx.say(`exported snapshot ${target} (${info.kind}, ${info.status}) to ${shown(out)}`);
      return 0;
    }
    const started = performance.now();
    const files = await store.exportFiles(out, format, target);
    const durationMs = Math.round(performance.now() - started);
    const rows = files.reduce((n, f) => n + f.rows, 0);
    if (ctx.json) ctx.emit({ out, snapshot: target, format, files, rows, durationMs });
    else ctx.say(`exported snapshot ${target} (${info.kind}, ${info.status}) to ${shown(out)}/: ${files.length} ${format} files, ${rows} rows in ${durationMs} ms`);
    return 0;
  } finally {
    store.close();
  }
}

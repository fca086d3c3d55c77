// `wbsync export`: a standalone SQLite copy whose views show one snapshot, or (--format csv|jsonl)
// one plain file per view in a folder.

import { shown } from '../../domain/display-text.js';
import { WbsyncError } from '../../domain/errors.js';
import { intFlag, stringFlag } from '../flag-values.js';
import type { Command } from '../command.js';
import { openDb } from '../open.js';

const FORMATS = ['sqlite', 'csv', 'jsonl'] as const;
type Format = (typeof FORMATS)[number];

function formatFlag(value: string | undefined): Format {
  if (value === undefined) return 'sqlite';
  if ((FORMATS as readonly string[]).includes(value)) return value as Format;
  throw new WbsyncError('usage', `--format must be one of ${FORMATS.join(', ')}, got '${value}'`, { hint: "see 'wbsync export --help'" });
}

export const exportCommand: Command = {
  name: 'export',
  summary: 'write a consistent standalone SQLite file (or CSV / JSON Lines files) as of a snapshot',
  usage: 'wbsync export [--format sqlite|csv|jsonl] --out PATH [--snapshot N]',
  description:
    'Copies the database consistently (safe while a daemon writes) into PATH, trimmed so that its\n' +
    'views show snapshot N (default: the latest complete one). The file is created with mode 0600.\n' +
    'With --format csv or jsonl, PATH is a folder (created 0700; it must not exist or be empty)\n' +
    'holding one file per view (<view>.csv / <view>.jsonl, mode 0600), UTF-8, streamed. CSV is\n' +
    'RFC 4180 with a header row and CRLF line ends; a NULL is an empty field, an empty string "".\n' +
    'Strings are written byte for byte (a leading = is kept: import columns as text in a\n' +
    'spreadsheet). JSON Lines holds one object per row; JSON-valued columns stay JSON text.',
  examples: [
    'wbsync export --out backup.db',
    'wbsync export --out as-of-12.db --snapshot 12',
    'wbsync export --format csv --out report-csv',
    'wbsync export --format jsonl --out as-of-12 --snapshot 12',
  ],
  flags: [
    { name: 'format', type: 'string', valueName: 'sqlite|csv|jsonl', description: 'what to write (default sqlite: one database file)' },
    { name: 'out', type: 'string', valueName: 'PATH', description: 'the file (sqlite) or folder (csv, jsonl) to write; must not exist' },
    { name: 'snapshot', type: 'number', valueName: 'N', description: 'snapshot to show (default: latest complete)' },
  ],
  async run(ctx) {
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
  },
};

// `wbsync export`: a standalone SQLite copy whose views show one snapshot, or (--format csv|jsonl)
// one plain file per view in a folder.

import type { Command } from '../command.js';

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
  run: async (ctx) => (await import('../actions/export.js')).runExportCommand(ctx),
};

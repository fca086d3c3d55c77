// `wbsync drill`: proves the backup restores — snapshot N restored into a scratch service (the
// bundled emulator, or a staging service), read back and compared. Exit 0 only when equal.

import { EXIT_CODES, WbsyncError } from '../../domain/errors.js';
import { runDrill } from '../../drill/drill.js';
import { formatDrill } from '../../drill/format.js';
import type { Command } from '../command.js';
import { intFlag, listFlag, stringFlag } from '../flag-values.js';
import { targetOf } from './restore-workspace.js';

export const drillCommand: Command = {
  name: 'drill',
  summary: 'restore into a scratch service, read it back and compare (proves the backup restores)',
  usage: 'wbsync drill [--workspace ID]... [--snapshot N] [--dialect observed|spec] [--target-url URL --target-key-file F]',
  description:
    'Copies snapshot N (default: the latest complete one) out of the database, read-only, starts the\n' +
    'bundled emulator on loopback (empty, one user per member of the snapshot), runs `restore workspace`\n' +
    'into it for every workspace (or each --workspace), reads the result back with the sync code into a\n' +
    'scratch database and compares it with the snapshot modulo ids: every module, collection, column,\n' +
    'record, sub-record, cell, amendment thread, automation, member and grant. Prints a table per\n' +
    'workspace. What the service cannot restore (ids, times, amendment authors, run counts, what the restore\n' +
    'plan says it cannot place) is listed with why, not failed. Exit 0 when everything restorable is\n' +
    'equal, 5 when something differs or was refused (named), 6 when there is nothing to drill. The\n' +
    'configured service is never contacted. With --target-url and --target-key-file the restore goes to\n' +
    'that (staging) service instead, under a name of its own; the workspaces stay there for inspection.\n' +
    'Its files live in a private temporary folder, removed afterwards.',
  examples: ['wbsync drill', 'wbsync drill --workspace 65f0c0ffee0000000000aaaa --dialect spec --json', 'wbsync drill --target-url https://boards.staging.example.com --target-key-file ./staging.key'],
  flags: [
    { name: 'workspace', type: 'list', valueName: 'ID', description: 'only this workspace (repeatable; default: all in the snapshot)' },
    { name: 'snapshot', type: 'number', valueName: 'N', description: 'drill this snapshot (default: the latest complete one)' },
    { name: 'dialect', type: 'string', valueName: 'D', choices: ['observed', 'spec'], description: 'dialect of the bundled emulator (default: drill.dialect)' },
    { name: 'target-url', type: 'string', valueName: 'URL', description: 'restore into this staging service instead of the bundled emulator' },
    { name: 'target-key-file', type: 'string', valueName: 'FILE', description: "the staging service's key, read from this file" },
  ],
  async run(ctx) {
    const { config } = ctx.config();
    const flags = ctx.args.flags;
    const snapshotId = intFlag(flags, 'snapshot', 'drill');
    if (snapshotId !== undefined && snapshotId < 1) throw new WbsyncError('usage', '--snapshot: expected a snapshot id (a positive whole number)');
    const dialect = stringFlag(flags, 'dialect') ?? config.drill.dialect;
    if (dialect !== 'observed' && dialect !== 'spec') throw new WbsyncError('usage', `--dialect: expected observed or spec, got '${dialect}'`);
    const target = targetOf(flags);
    const report = await runDrill({
      db: config.db,
      ...(snapshotId !== undefined ? { snapshotId } : {}),
      workspaceIds: listFlag(flags, 'workspace'),
      dialect,
      ...(target ? { target } : {}),
      attribution: config.restore.attribution,
      http: config.http,
      logger: ctx.logger(),
      signal: ctx.signal,
    });
    ctx.logger().info({ snapshot: report.snapshot, ok: report.ok, durationMs: report.durationMs, workspaces: report.workspaces.length }, 'drill finished');
    if (ctx.json) ctx.emit(report);
    else ctx.say(formatDrill(report));
    return report.ok ? EXIT_CODES.ok : EXIT_CODES.partial;
  },
};

// Help text for wbsync and each command, built from the command specs.

import { COMMON_FLAGS, type FlagSpec } from './args.js';
import type { Command } from './command.js';

function flagLines(flags: readonly FlagSpec[]): string[] {
  const rows = flags.map((f) => [`--${f.name}${f.type === 'boolean' ? '' : ` ${f.valueName ?? 'VALUE'}`}${f.type === 'list' ? ' (repeatable)' : ''}`, f.description]);
  const width = Math.max(...rows.map((r) => r[0].length));
  return rows.map(([a, b]) => `  ${a.padEnd(width)}  ${b}`);
}

export function commandHelp(cmd: Command): string {
  const own = cmd.flags.filter((f) => !COMMON_FLAGS.some((c) => c.name === f.name));
  const lines = [`usage: ${cmd.usage}`, '', cmd.description, ''];
  if (cmd.positionals?.length) {
    lines.push('arguments:');
    for (const p of cmd.positionals) lines.push(`  ${p.name}  ${p.description}`);
    lines.push('');
  }
  if (own.length) lines.push('options:', ...flagLines(own), '');
  lines.push('common options:', ...flagLines(COMMON_FLAGS), '');
  lines.push('examples:', ...cmd.examples.map((e) => `  ${e}`), '');
  return lines.join('\n');
}

export function mainHelp(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'wbsync — sync-and-backup daemon for the Workspace Board Service',
    '',
    'usage: wbsync [--config FILE] [--db FILE] [--log-level LEVEL] [--json] <command> [options]',
    '       (those global flags may also follow the command)',
    '',
    'commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'The key comes from WBSYNC_API_KEY or WBSYNC_API_KEY_FILE, never from the command line.',
    "Run 'wbsync <command> --help' for a command's options.",
    '',
    'examples:',
    '  wbsync demo',
    '  WBSYNC_BASE_URL=https://boards.example.com WBSYNC_API_KEY_FILE=./key wbsync sync --full',
    '',
  ].join('\n');
}

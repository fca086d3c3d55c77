// What a command is, and the context the CLI hands it: parsed flags, output streams, config.
//
// A command is a plain declarative value; program.ts turns the list in registry.ts into a
// commander program (parsing, generated help, typo suggestions, usage errors). The shape:
//
//   export const pruneCommand: Command = {
//     name: 'prune',                       // the word after `wbsync`
//     summary: 'one line for `wbsync --help`',
//     usage: 'wbsync prune [--keep-last N] [--dry-run]',   // the synopsis, as the contract writes it
//     description: 'paragraphs for `wbsync prune --help`',
//     examples: ['wbsync prune --keep-daily 7 --dry-run'], // at least one, each a real command line
//     flags: [                             // this command's own options (the globals are added)
//       { name: 'keep-last', type: 'number', valueName: 'N', description: '...' },
//       { name: 'dry-run', type: 'boolean', description: '...' },
//     ],
//     positionals: [{ name: 'ID', description: '...', required: true, variadic: true }],
//     // what it does, loaded only when it runs: actions/prune.ts exports runPruneCommand(ctx),
//     // which returns the exit code (EXIT_CODES)
//     run: async (ctx) => (await import('../actions/prune.js')).runPruneCommand(ctx),
//   };
//
//   // actions/prune.ts
//   export async function runPruneCommand(ctx: CommandContext): Promise<number> {
//     const keepLast = intFlag(ctx.args.flags, 'keep-last', 'prune');   // from flag-values.ts
//     ...
//   }
//
// Flag types: 'boolean' (no value), 'string' (one value, given once), 'number' (a finite number),
// 'list' (repeatable, collected in order), 'pair' (exactly two values: `--changed-between T1 T2`).
// `choices` restricts a string flag's values. `ctx.args.flags` is keyed by the flag's name
// (`flags['dry-run']`), with the global flags (--config, --db, --log-level, --json) merged in;
// `ctx.args.positionals` holds the operands in order. A command with subcommands (`restore module`,
// `restore records`) lists them in `subcommands` and has no `run` of its own; each subcommand is a
// Command of the same shape whose `usage` starts with the full path (`wbsync restore module ...`);
// a new one (`restore workspace`) is one more entry in restoreCommand.subcommands.
// Throw a WbsyncError('usage', ...) for a usage problem the parser cannot see: it exits 2.
// A new command: one file in commands/, exporting its Command value, added to registry.ts, and its
// action in actions/; flag values that need checking (counts, ids, lists) are read there with
// intFlag/stringFlag/listFlag from './flag-values.js'. A file in commands/ imports nothing that
// runs (only command.ts and other commands/ files): every command line — --help, --version, and
// each command's start — loads all of them (src/cli/startup-imports.test.ts holds the line).

import type { Logger } from '../config/logger.js';
import type { LoadedConfig } from '../config/load.js';

export type FlagType = 'boolean' | 'string' | 'number' | 'list' | 'pair';

export interface FlagSpec {
  name: string;
  type: FlagType;
  description: string;
  /** Shown in help after the flag (`--snapshot N`); also names the value in errors. */
  valueName?: string;
  /** The only values a string flag accepts. */
  choices?: readonly string[];
}

export interface PositionalSpec {
  name: string;
  description: string;
  required?: boolean;
  variadic?: boolean;
}

export type FlagValues = Record<string, string | boolean | number | string[] | undefined>;

export interface ParsedArgs {
  flags: FlagValues;
  positionals: string[];
}

export interface Output {
  write(text: string): void;
  /** true when this stream is a terminal (progress lines only then). */
  isTTY?: boolean;
}

export interface CommandContext {
  args: ParsedArgs;
  json: boolean;
  stdout: Output;
  stderr: Output;
  env: NodeJS.ProcessEnv;
  /** Loads and validates configuration once (flags > env > file > defaults). */
  config(): LoadedConfig;
  logger(): Logger;
  /** Human output: stdout normally, stderr under --json (stdout then holds only the JSON document). */
  say(text: string): void;
  /** The one JSON document of a --json run. */
  emit(doc: unknown): void;
  /** Resolves when SIGINT/SIGTERM arrives (daemon, emulator). */
  signal: AbortSignal;
}

export interface Command {
  name: string;
  summary: string;
  usage: string;
  description: string;
  examples: string[];
  flags: FlagSpec[];
  positionals?: PositionalSpec[];
  /** Only the emulator takes --api-key (its own fake key). */
  allowSecretFlags?: boolean;
  /** `restore module`, `restore records`: a command with subcommands has no run of its own. */
  subcommands?: Command[];
  run?(ctx: CommandContext): Promise<number>;
}

/** Flags every command takes, before or after the command's name. */
export const GLOBAL_FLAGS: FlagSpec[] = [
  { name: 'config', type: 'string', valueName: 'FILE', description: 'config file (JSON); also WBSYNC_CONFIG' },
  { name: 'db', type: 'string', valueName: 'FILE', description: 'snapshot database; also WBSYNC_DB' },
  { name: 'log-level', type: 'string', valueName: 'LEVEL', description: 'fatal|error|warn|info|debug|trace|silent' },
  { name: 'json', type: 'boolean', description: 'print exactly one JSON document on stdout' },
];

// What a command is, and the context the CLI hands it: parsed flags, output streams, config.

import type { Logger } from '../config/logger.js';
import type { LoadedConfig } from '../config/load.js';
import type { FlagSpec, ParsedArgs, PositionalSpec } from './args.js';

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
  run(ctx: CommandContext): Promise<number>;
}

// The CLI's single entry and single top-level catch: dispatch, help, exit codes.

import { loadConfig, type LoadedConfig } from '../config/load.js';
import { createLogger, scrubSecrets, type Logger } from '../config/logger.js';
import { EXIT_CODES, WbsyncError, exitCodeFor, isWbsyncError } from '../domain/errors.js';
import { COMMON_FLAGS, parseArgs, suggest, stringFlag } from './args.js';
import type { Command, CommandContext, Output } from './command.js';
import { commandHelp, mainHelp } from './help.js';
import { COMMANDS } from './registry.js';

export interface CliIo {
  stdout: Output;
  stderr: Output;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

/** Flags that may stand before the command, as with git or restic: `wbsync --config F sync`. */
const GLOBAL_FLAGS = COMMON_FLAGS.filter((f) => f.name !== 'help');

/**
 * Moves global flags written before the command to after it, where every command parses them.
 * Anything else before the command is left where it is (so `--help` and `--version` still work,
 * and an unknown flag there is refused as a command would be).
 */
export function hoistGlobalFlags(argv: readonly string[]): string[] {
  const before: string[] = [];
  let i = 0;
  while (i < argv.length && argv[i]!.startsWith('--') && argv[i] !== '--') {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const spec = GLOBAL_FLAGS.find((f) => f.name === (eq === -1 ? arg.slice(2) : arg.slice(2, eq)));
    if (!spec) break;
    if (spec.type === 'boolean' || eq !== -1) {
      before.push(arg);
      i += 1;
    } else {
      const value = argv[i + 1];
      if (value === undefined) {
        throw new WbsyncError('usage', `--${spec.name} needs a value (${spec.valueName ?? 'VALUE'}) and then a command`, { hint: "see 'wbsync --help'" });
      }
      before.push(arg, value);
      i += 2;
    }
  }
  if (before.length === 0) return [...argv];
  const [name, ...rest] = argv.slice(i);
  if (name === undefined || name.startsWith('-')) {
    throw new WbsyncError('usage', `global flags (${before.filter((a) => a.startsWith('--')).join(' ')}) must be followed by a command`, { hint: "see 'wbsync --help'" });
  }
  return [name, ...before, ...rest];
}

function findCommand(name: string): Command | undefined {
  return COMMANDS.find((c) => c.name === name);
}

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let loaded: LoadedConfig | undefined;
  let json = false;
  try {
    const [name, ...rest] = hoistGlobalFlags(argv);
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      const target = name === 'help' && rest[0] ? findCommand(rest[0]) : undefined;
      if (name === 'help' && rest[0] && !target) throw unknownCommand(rest[0]);
      io.stdout.write(target ? commandHelp(target) : mainHelp(COMMANDS));
      return name === undefined ? EXIT_CODES.usage : EXIT_CODES.ok;
    }
    if (name === '--version') {
      io.stdout.write('wbsync 0.1.0\n');
      return EXIT_CODES.ok;
    }
    const cmd = findCommand(name);
    if (!cmd) throw unknownCommand(name);
    json = rest.includes('--json');
    const args = parseArgs(rest, [...cmd.flags, ...COMMON_FLAGS], cmd.name, { allowSecretFlags: cmd.allowSecretFlags });
    if (args.flags.help) {
      io.stdout.write(commandHelp(cmd));
      return EXIT_CODES.ok;
    }
    const maxPositionals = cmd.positionals?.some((p) => p.variadic) ? Infinity : (cmd.positionals?.length ?? 0);
    if (args.positionals.length > maxPositionals) {
      throw new WbsyncError('usage', `unexpected argument '${args.positionals[maxPositionals]}' for '${cmd.name}'`, {
        hint: `see 'wbsync ${cmd.name} --help'`,
      });
    }
    let logger: Logger | undefined;
    const config = (): LoadedConfig => {
      loaded ??= loadConfig(
        { config: stringFlag(args.flags, 'config'), db: stringFlag(args.flags, 'db'), logLevel: stringFlag(args.flags, 'log-level') },
        io.env,
      );
      return loaded;
    };
    const ctx: CommandContext = {
      args,
      json,
      stdout: io.stdout,
      stderr: io.stderr,
      env: io.env,
      config,
      logger: () => {
        if (!logger) {
          const c = config();
          logger = createLogger({ level: c.config.log.level, secrets: [c.apiKey], write: (l) => io.stderr.write(l) });
        }
        return logger;
      },
      say: (text) => (json ? io.stderr : io.stdout).write(text.endsWith('\n') ? text : `${text}\n`),
      emit: (doc) => io.stdout.write(`${JSON.stringify(doc, null, 2)}\n`),
      signal: io.signal ?? new AbortController().signal,
    };
    return await cmd.run(ctx);
  } catch (e) {
    return reportFailure(e, io, json, loaded?.apiKey ?? io.env.WBSYNC_API_KEY ?? null);
  }
}

function unknownCommand(name: string): WbsyncError {
  const s = suggest(name, COMMANDS.map((c) => c.name));
  return new WbsyncError('usage', `unknown command '${name}'${s ? `; did you mean '${s}'?` : ''}`, {
    hint: "run 'wbsync --help' for the list of commands",
  });
}

function reportFailure(e: unknown, io: CliIo, json: boolean, key: string | null): number {
  const code = exitCodeFor(e);
  const secrets = key ? [key] : [];
  const err = isWbsyncError(e)
    ? { code: e.code, message: e.message, hint: e.hint ?? null, ...(e.details ? { details: e.details } : {}) }
    : { code: 'internal', message: `internal error: ${(e as Error)?.message ?? String(e)}`, hint: 'this is a bug in wbsync: please report it with the log' };
  if (json) {
    io.stdout.write(scrubSecrets(`${JSON.stringify({ error: err, exitCode: code }, null, 2)}\n`, secrets));
  }
  let text = `wbsync: ${err.message}\n${err.hint ? `hint: ${err.hint}\n` : ''}`;
  if (!isWbsyncError(e) && e instanceof Error && e.stack) text += `${e.stack}\n`;
  io.stderr.write(scrubSecrets(text, secrets));
  return code;
}

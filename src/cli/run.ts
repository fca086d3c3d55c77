// The CLI's single entry and single top-level catch: dispatch, help, exit codes.

import { readFileSync } from 'node:fs';
import type { LoadedConfig } from '../config/load.js';
import type { Logger } from '../config/logger.js';
import { scrubSecrets } from '../config/scrub-secrets.js';
import { terminalText } from '../domain/display-text.js';
import { WbsyncError, exitCodeFor, isWbsyncError } from '../domain/errors.js';
import type { CommandContext, Output } from './command.js';
import { stringFlag } from './flag-values.js';
import { parseCommandLine } from './program.js';
import { COMMANDS } from './registry.js';

export interface CliIo {
  stdout: Output;
  stderr: Output;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const QUIETER: readonly string[] = ['trace', 'debug', 'info'];

/**
 * On a terminal a command's human output is what a person reads: log lines below warn join it only
 * when asked for (--log-level or WBSYNC_LOG_LEVEL), except for the daemon, whose logs are its
 * output. Off a terminal (a pipe, the journal, a container's log) the configured level stands.
 */
export function terminalLogLevel(configured: string, how: { terminal: boolean; asked: boolean; logsAreTheOutput: boolean }): string {
  if (!how.terminal || how.asked || how.logsAreTheOutput) return configured;
  return QUIETER.includes(configured) ? 'warn' : configured;
}

/** --json anywhere before a `--`: known before parsing, so even a usage error is one JSON document. */
function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let loaded: LoadedConfig | undefined;
  const json = wantsJson(argv);
  try {
    const outcome = parseCommandLine(COMMANDS, argv, { version: VERSION });
    if (outcome.kind === 'printed') {
      if (outcome.code !== 0) {
        io.stderr.write(outcome.text);
        throw new WbsyncError('usage', 'no command given', { hint: "run 'wbsync --help' for the list of commands" });
      }
      if (json) io.stdout.write(`${JSON.stringify({ help: outcome.text }, null, 2)}\n`);
      else io.stdout.write(outcome.text);
      return 0;
    }
    const { command: cmd, args } = outcome.invocation;
    // loaded once a command runs (the config's schema, pino): help, --version and usage errors go without
    const [{ loadConfig }, { createLogger }] = await Promise.all([import('../config/load.js'), import('../config/logger.js')]);
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
          const level = terminalLogLevel(c.config.log.level, {
            terminal: io.stderr.isTTY === true,
            asked: stringFlag(args.flags, 'log-level') !== undefined || Boolean(io.env.WBSYNC_LOG_LEVEL),
            logsAreTheOutput: cmd.name === 'daemon' || cmd.name === 'worker',
          });
          logger = createLogger({ level, secrets: [c.apiKey], write: (l) => io.stderr.write(l), readable: io.stderr.isTTY === true });
          for (const w of c.warnings ?? []) logger.warn({}, w);
        }
        return logger;
      },
      // human output: what the service sent (names, values) may hold bidi controls or control
      // characters; they are shown escaped (display-text.ts), so a line reads as it is. JSON (emit) stays exact.
      say: (text) => (json ? io.stderr : io.stdout).write(terminalText(text.endsWith('\n') ? text : `${text}\n`)),
      emit: (doc) => io.stdout.write(`${JSON.stringify(doc, null, 2)}\n`),
      signal: io.signal ?? new AbortController().signal,
    };
    return await cmd.run!(ctx);
  } catch (e) {
    return reportFailure(e, io, json, loaded?.apiKey ?? io.env.WBSYNC_API_KEY ?? null);
  }
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
  io.stderr.write(terminalText(scrubSecrets(text, secrets)));
  return code;
}

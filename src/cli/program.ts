// The command line, built with commander from the declarative commands (command.ts): parsing of
// typed flags, global flags before or after the command, generated help with each command's
// examples, typo suggestions. Parsing never runs anything: it returns what to run, or what help
// printed; every parse problem becomes one WbsyncError('usage') line (exit 2, usage-errors.ts).

import { shown } from '../domain/display-text.js';
import { Argument, Command as Commander, CommanderError, Option } from 'commander';
import { WbsyncError } from '../domain/errors.js';
import { GLOBAL_FLAGS, type Command, type FlagSpec, type FlagValues, type ParsedArgs } from './command.js';
import { usageErrorOf, type ParseState } from './usage-errors.js';

export interface Invocation {
  command: Command;
  /** `wbsync restore module` */
  path: string;
  args: ParsedArgs;
}

export type ParseOutcome =
  | { kind: 'run'; invocation: Invocation }
  /** --help, --version or `wbsync help X`: the text commander printed, and the exit code. */
  | { kind: 'printed'; text: string; code: number; stream: 'stdout' | 'stderr' };

const HELP_WIDTH = 110;

function camel(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/** `--snapshot N`, as help shows a flag (commander's own flags string stays `<value>`). */
function flagTerm(f: FlagSpec): string {
  if (f.type === 'boolean') return `--${f.name}`;
  const value = f.valueName ?? 'VALUE';
  return `--${f.name} ${value}`;
}

function looksLikeFlag(v: string): boolean {
  return v.startsWith('--') && v.length > 2;
}

function optionOf(f: FlagSpec, path: string, terms: Map<Option, string>): Option {
  const hint = { hint: `see '${path} --help'` };
  const needsValue = (): WbsyncError => new WbsyncError('usage', `--${f.name} needs a value (${f.valueName ?? 'VALUE'})`, hint);
  let option: Option;
  switch (f.type) {
    case 'boolean':
      option = new Option(`--${f.name}`, f.description);
      break;
    case 'number':
      option = new Option(`--${f.name} <value>`, f.description).argParser((v: string) => {
        if (looksLikeFlag(v)) throw needsValue();
        const n = Number(v);
        if (v.trim() === '' || !Number.isFinite(n)) throw new WbsyncError('usage', `--${f.name} expects a number, got '${shown(v)}'`, hint);
        return n;
      });
      break;
    case 'list':
      option = new Option(`--${f.name} <value>`, f.description).argParser((v: string, prev: string[] | undefined) => {
        if (looksLikeFlag(v)) throw needsValue();
        return [...(prev ?? []), v];
      });
      break;
    case 'pair':
      option = new Option(`--${f.name} <value...>`, f.description);
      break;
    default:
      option = new Option(`--${f.name} <value>`, f.description).argParser((v: string, prev: string | undefined) => {
        if (prev !== undefined) throw new WbsyncError('usage', `--${f.name} given twice`, hint);
        if (looksLikeFlag(v)) throw needsValue();
        if (f.choices && !f.choices.includes(v)) throw new WbsyncError('usage', `--${f.name} must be one of ${f.choices.join(', ')}, got '${shown(v)}'`, hint);
        return v;
      });
  }
  terms.set(option, flagTerm(f));
  return option;
}

function examplesText(examples: readonly string[]): string {
  return `\nexamples:\n${examples.map((e) => `  ${e}`).join('\n')}\n`;
}

/** The parsed flags keyed by flag name (globals merged in), and the operands. */
function argsOf(spec: Command, path: string, self: Commander): ParsedArgs {
  const values = self.optsWithGlobals() as Record<string, unknown>;
  const flags: FlagValues = {};
  for (const f of [...spec.flags, ...GLOBAL_FLAGS]) {
    const v = values[camel(f.name)];
    if (v === undefined) continue;
    if (f.type === 'pair' && (!Array.isArray(v) || v.length !== 2)) {
      throw new WbsyncError('usage', `--${f.name} takes two values: --${f.name} ${f.valueName ?? 'A B'}`, { hint: `see '${path} --help'` });
    }
    flags[f.name] = v as FlagValues[string];
  }
  const positionals = [...self.args];
  const max = spec.positionals?.some((p) => p.variadic) ? Infinity : (spec.positionals?.length ?? 0);
  if (positionals.length > max) {
    throw new WbsyncError('usage', `unexpected argument '${positionals[max]}' for '${path.replace(/^wbsync /, '')}'`, { hint: `see '${path} --help'` });
  }
  return { flags, positionals };
}

/** What follows the command's path in its usage line (commander prints the path itself). */
export function usageAfterPath(usage: string, path: string): string {
  if (usage.trim() === path) return '';
  return usage.startsWith(`${path} `) ? usage.slice(path.length + 1) : usage.replace(/^wbsync\s+/, '');
}

function addCommand(parent: Commander, spec: Command, parentPath: string, state: ParseState, terms: Map<Option, string>, found: (i: Invocation) => void): void {
  const path = `${parentPath} ${spec.name}`;
  const cmd = parent
    .command(spec.name)
    .summary(spec.summary)
    .description(spec.description)
    .usage(usageAfterPath(spec.usage, path))
    .addHelpText('after', examplesText(spec.examples));
  state.flagsByPath.set(path, [...spec.flags, ...GLOBAL_FLAGS]);
  state.secretsAllowed.set(path, spec.allowSecretFlags === true);
  for (const f of spec.flags) cmd.addOption(optionOf(f, path, terms));
  for (const p of spec.positionals ?? []) {
    const name = `${p.name}${p.variadic ? '...' : ''}`;
    cmd.addArgument(new Argument(p.required ? `<${name}>` : `[${name}]`, p.description));
  }
  if (spec.subcommands?.length) {
    cmd.hook('preSubcommand', (_self, sub) => void (state.path = `${path} ${sub.name()}`));
    for (const sub of spec.subcommands) addCommand(cmd, sub, path, state, terms, found);
  }
  if (spec.run) cmd.action((...a: unknown[]) => found({ command: spec, path, args: argsOf(spec, path, a[a.length - 1] as Commander) }));
}

export interface ProgramOptions {
  version: string;
}

/** Parses one command line against the commands; throws WbsyncError('usage') on any problem. */
export function parseCommandLine(commands: readonly Command[], argv: readonly string[], opts: ProgramOptions): ParseOutcome {
  let out = '';
  let err = '';
  let invocation: Invocation | undefined;
  const terms = new Map<Option, string>();
  const state: ParseState = { path: 'wbsync', flagsByPath: new Map([['wbsync', GLOBAL_FLAGS]]), secretsAllowed: new Map() };
  const program = new Commander('wbsync')
    .exitOverride()
    .allowExcessArguments(true)
    .configureOutput({ writeOut: (s) => void (out += s), writeErr: (s) => void (err += s), outputError: () => undefined })
    .configureHelp({
      helpWidth: HELP_WIDTH,
      showGlobalOptions: true,
      styleTitle: (s) => s.toLowerCase(),
      subcommandTerm: (c) => c.name(),
      optionTerm: (o) => terms.get(o) ?? o.flags,
    })
    .usage('[--config FILE] [--db FILE] [--log-level LEVEL] [--json] <command> [options]\n       (those global flags may also follow the command)')
    .description('wbsync — sync-and-backup daemon for the Workspace Board Service')
    .version(`wbsync ${opts.version}`, '--version', 'print the version');
  for (const f of GLOBAL_FLAGS) program.addOption(optionOf(f, 'wbsync', terms));
  program.hook('preSubcommand', (_self, sub) => void (state.path = `wbsync ${sub.name()}`));
  program.addHelpText(
    'after',
    [
      '',
      'The key comes from WBSYNC_API_KEY or WBSYNC_API_KEY_FILE, never from the command line.',
      "Run 'wbsync <command> --help' for a command's options.",
      examplesText(['wbsync demo', 'WBSYNC_BASE_URL=https://boards.example.com WBSYNC_API_KEY_FILE=./key wbsync sync --full']),
    ].join('\n'),
  );
  for (const spec of commands) addCommand(program, spec, 'wbsync', state, terms, (i) => (invocation = i));

  // `wbsync help NAME` for a NAME that is no command: refused like the command itself, with a suggestion
  const words = argv[0] === 'help' && argv[1] && !commands.some((c) => c.name === argv[1]) ? argv.slice(1) : argv;
  try {
    program.parse([...words], { from: 'user' });
  } catch (e) {
    if (!(e instanceof CommanderError)) throw e;
    if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return { kind: 'printed', text: out, code: 0, stream: 'stdout' };
    if (e.code === 'commander.help') {
      // `wbsync help X` (exit 0); a command with subcommands, or wbsync itself, given none: a usage error
      return e.exitCode === 0 ? { kind: 'printed', text: out, code: 0, stream: 'stdout' } : { kind: 'printed', text: err || out, code: 2, stream: 'stderr' };
    }
    throw usageErrorOf(e, state);
  }
  if (!invocation) throw new WbsyncError('internal', `no command ran for: ${argv.join(' ')}`);
  return { kind: 'run', invocation };
}

/** For tests that run one command's `run` directly: parses `name argv...` for that command. */
export function parseCommandArgs(spec: Command, argv: readonly string[]): Invocation {
  const outcome = parseCommandLine([spec], [spec.name, ...argv], { version: '0' });
  if (outcome.kind !== 'run') throw new WbsyncError('usage', `'${spec.name} ${argv.join(' ')}' printed help instead of running`);
  return outcome.invocation;
}

import { describe, expect, it } from 'vitest';
import { WbsyncError } from '../domain/errors.js';
import { GLOBAL_FLAGS, type Command } from './command.js';
import { parseCommandLine, type Invocation } from './program.js';
import { COMMANDS } from './registry.js';

const run = async (): Promise<number> => 0;
const TEST: Command[] = [
  {
    name: 'sync',
    summary: 's',
    usage: 'wbsync sync [--full]',
    description: 'd',
    examples: ['wbsync sync --full'],
    flags: [
      { name: 'full', type: 'boolean', description: '' },
      { name: 'workspace', type: 'list', valueName: 'ID', description: '' },
      { name: 'snapshot', type: 'number', valueName: 'N', description: '' },
      { name: 'out', type: 'string', valueName: 'FILE', description: '' },
      { name: 'format', type: 'string', valueName: 'F', choices: ['csv', 'jsonl'], description: '' },
      { name: 'between', type: 'pair', valueName: 'T1 T2', description: '' },
    ],
    positionals: [{ name: 'ID', description: '', variadic: true }],
    run,
  },
  { name: 'snapshots', summary: 's', usage: 'wbsync snapshots', description: 'd', examples: ['wbsync snapshots'], flags: [], run },
  {
    name: 'emulator',
    summary: 'e',
    usage: 'wbsync emulator',
    description: 'd',
    examples: ['wbsync emulator'],
    allowSecretFlags: true,
    flags: [{ name: 'api-key', type: 'string', valueName: 'KEY', description: '' }],
    run,
  },
  {
    name: 'restore',
    summary: 'r',
    usage: 'wbsync restore module ID',
    description: 'd',
    examples: ['wbsync restore module X'],
    flags: [],
    subcommands: [
      { name: 'module', summary: 'm', usage: 'wbsync restore module ID [--as-copy]', description: 'd', examples: ['wbsync restore module X'], flags: [{ name: 'as-copy', type: 'boolean', description: '' }], positionals: [{ name: 'ID', description: '', required: true }], run },
    ],
  },
];

function parse(argv: string[], commands: Command[] = TEST): Invocation {
  const o = parseCommandLine(commands, argv, { version: '9.9.9' });
  if (o.kind !== 'run') throw new Error(`printed: ${o.text}`);
  return o.invocation;
}

function usage(argv: string[]): WbsyncError {
  try {
    parse(argv);
  } catch (e) {
    expect(e).toBeInstanceOf(WbsyncError);
    expect((e as WbsyncError).code).toBe('usage');
    expect((e as WbsyncError).message).not.toContain('\n');
    return e as WbsyncError;
  }
  throw new Error(`expected a usage error for ${argv.join(' ')}`);
}

describe('parsing with commander', () => {
  it('parses booleans, repeated lists, numbers, strings, pairs and operands, keyed by flag name', () => {
    const r = parse(['sync', 'a', '--full', '--workspace', 'w1', '--workspace=w2', '--snapshot', '3', '--out=x.db', '--between', 'T1', 'T2', '--format', 'csv', 'b']);
    expect(r.path).toBe('wbsync sync');
    expect(r.args.positionals).toEqual(['a', 'b']);
    expect(r.args.flags).toEqual({ full: true, workspace: ['w1', 'w2'], snapshot: 3, out: 'x.db', between: ['T1', 'T2'], format: 'csv' });
  });

  it('takes --config, --db, --log-level and --json before or after the command', () => {
    const before = parse(['--config', 'w.json', '--db=x.db', '--json', '--log-level', 'warn', 'snapshots']);
    const after = parse(['snapshots', '--config', 'w.json', '--db=x.db', '--json', '--log-level', 'warn']);
    expect(before.args).toEqual(after.args);
    expect(before.args.flags).toEqual({ config: 'w.json', db: 'x.db', json: true, 'log-level': 'warn' });
    expect(parse(['--json', 'restore', 'module', 'M', '--as-copy']).args).toEqual({ flags: { json: true, 'as-copy': true }, positionals: ['M'] });
  });

  it('treats everything after -- as operands', () => {
    expect(parse(['sync', '--', '--full']).args.positionals).toEqual(['--full']);
  });

  it('should error in one line with a suggestion on an unknown command or flag', () => {
    expect(usage(['snapshot']).message).toBe("unknown command 'snapshot'; did you mean 'snapshots'?");
    expect(usage(['help', 'snapshot']).message).toBe("unknown command 'snapshot'; did you mean 'snapshots'?");
    expect(usage(['sync', '--ful']).message).toBe("unknown flag --ful for 'sync'; did you mean --full?");
    expect(usage(['sync', '--zzzzzzzz']).message).toBe("unknown flag --zzzzzzzz for 'sync'");
    expect(usage(['restore', 'modul', 'X']).message).toBe("unknown command 'restore modul'; did you mean 'restore module'?");
    expect(usage(['restore', 'module', 'X', '--as-copi']).hint).toBe("see 'wbsync restore module --help'");
    expect(usage(['--full', 'sync']).message).toMatch(/^unknown flag --full before the command/);
  });

  it('should error and never take the key on the command line, nor echo it', () => {
    for (const argv of [['sync', '--api-key', 'secret-value'], ['sync', '--api-key=secret-value'], ['--token=secret-value', 'sync']]) {
      const e = usage(argv);
      expect(e.message).toMatch(/never accepted on the command line/);
      expect(JSON.stringify(e) + e.message + (e.hint ?? '')).not.toContain('secret-value');
    }
    expect(parse(['emulator', '--api-key', 'k']).args.flags['api-key']).toBe('k');
  });

  it('should error on missing, repeated or malformed values', () => {
    expect(usage(['sync', '--out']).message).toBe('--out needs a value (FILE)');
    expect(usage(['sync', '--out', '--full']).message).toBe('--out needs a value (FILE)');
    expect(usage(['sync', '--out', 'a', '--out', 'b']).message).toBe('--out given twice');
    expect(usage(['sync', '--snapshot', 'abc']).message).toBe("--snapshot expects a number, got 'abc'");
    expect(usage(['sync', '--full=yes']).message).toBe('--full takes no value');
    expect(usage(['sync', '--format', 'xml']).message).toBe("--format must be one of csv, jsonl, got 'xml'");
    expect(usage(['sync', '--between', 'T1']).message).toMatch(/--between takes two values/);
    expect(usage(['snapshots', 'extra']).message).toBe("unexpected argument 'extra' for 'snapshots'");
    expect(usage(['restore', 'module']).message).toBe("'restore module' needs ID");
    expect(usage(['--config']).message).toMatch(/--config needs a value \(FILE\)/);
  });

  it('prints help (exit 0) for --help, help X and --version; a missing command is a usage error (2)', () => {
    const help = parseCommandLine(TEST, ['sync', '--help'], { version: '9' });
    expect(help).toMatchObject({ kind: 'printed', code: 0, stream: 'stdout' });
    expect(parseCommandLine(TEST, ['help', 'sync'], { version: '9' })).toMatchObject({ kind: 'printed', code: 0 });
    expect(parseCommandLine(TEST, ['--version'], { version: '9.9.9' })).toMatchObject({ kind: 'printed', code: 0, text: 'wbsync 9.9.9\n' });
    expect(parseCommandLine(TEST, [], { version: '9' })).toMatchObject({ kind: 'printed', code: 2, stream: 'stderr' });
    expect(parseCommandLine(TEST, ['restore'], { version: '9' })).toMatchObject({ kind: 'printed', code: 2, stream: 'stderr' });
  });
});

describe('the real commands', () => {
  const all = COMMANDS.flatMap((c) => [{ path: c.name, cmd: c }, ...(c.subcommands ?? []).map((s) => ({ path: `${c.name} ${s.name}`, cmd: s }))]);

  it.each(all.map((a) => [a.path, a.cmd] as const))('wbsync %s: help shows its usage, options, the global flags and its examples', (path, cmd) => {
    const o = parseCommandLine(COMMANDS, [...path.split(' '), '--help'], { version: '0' });
    if (o.kind !== 'printed') throw new Error('no help');
    expect(o.text).toMatch(new RegExp(`^usage: wbsync ${path}`));
    for (const f of [...cmd.flags, ...GLOBAL_FLAGS]) expect(o.text).toContain(`--${f.name}`);
    expect(cmd.examples.length).toBeGreaterThan(0);
    for (const e of cmd.examples) expect(o.text).toContain(`  ${e}`);
  });

  it.each(all.map((a) => [a.path, a.cmd] as const))('wbsync %s: the usage line names only real flags, and every example parses', (path, cmd) => {
    const known = new Set([cmd, ...(cmd.subcommands ?? [])].flatMap((c) => c.flags).concat(GLOBAL_FLAGS).map((f) => `--${f.name}`));
    for (const flag of cmd.usage.match(/--[a-z-]+/g) ?? []) expect(known.has(flag), `${path}: ${flag}`).toBe(true);
    for (const e of cmd.examples) {
      const argv = e.replace(/^(?:[A-Z_]+=\S+\s+)*/, '').split(/\s+/).slice(1);
      if (argv[0] !== path.split(' ')[0]) continue; // e.g. `curl ...` beside the daemon's
      const o = parseCommandLine(COMMANDS, argv, { version: '0' });
      expect(o.kind, e).toBe('run');
    }
  });
});

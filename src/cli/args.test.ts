import { describe, expect, it } from 'vitest';
import { WbsyncError } from '../domain/errors.js';
import { COMMON_FLAGS, intFlag, levenshtein, parseArgs, suggest, type FlagSpec } from './args.js';

const FLAGS: FlagSpec[] = [
  ...COMMON_FLAGS,
  { name: 'full', type: 'boolean', description: '' },
  { name: 'workspace', type: 'list', description: '' },
  { name: 'snapshot', type: 'number', description: '' },
  { name: 'out', type: 'string', description: '' },
];

function usage(fn: () => unknown): WbsyncError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(WbsyncError);
    expect((e as WbsyncError).code).toBe('usage');
    return e as WbsyncError;
  }
  throw new Error('expected a usage error');
}

describe('parseArgs', () => {
  it('parses booleans, repeated lists, numbers, strings and positionals', () => {
    const r = parseArgs(['module', 'abc', '--full', '--workspace', 'w1', '--workspace=w2', '--snapshot', '3', '--out=x.db'], FLAGS, 'restore');
    expect(r.positionals).toEqual(['module', 'abc']);
    expect(r.flags).toEqual({ full: true, workspace: ['w1', 'w2'], snapshot: 3, out: 'x.db' });
  });

  it('should error with a suggestion on an unknown flag', () => {
    expect(usage(() => parseArgs(['--ful'], FLAGS, 'sync')).message).toBe("unknown flag --ful for 'sync'; did you mean --full?");
    expect(usage(() => parseArgs(['--zzzzzzzz'], FLAGS, 'sync')).message).toBe("unknown flag --zzzzzzzz for 'sync'");
  });

  it('should error and never take the key on the command line', () => {
    const e = usage(() => parseArgs(['--api-key', 'secret-value'], FLAGS, 'sync'));
    expect(e.message).toMatch(/never accepted on the command line/);
    expect(e.message).not.toContain('secret-value');
    expect(parseArgs(['--api-key', 'k'], [...FLAGS, { name: 'api-key', type: 'string', description: '' }], 'emulator', { allowSecretFlags: true }).flags['api-key']).toBe('k');
  });

  it('should error on missing or malformed values', () => {
    expect(usage(() => parseArgs(['--out'], FLAGS, 'export')).message).toMatch(/--out needs a value/);
    expect(usage(() => parseArgs(['--snapshot', 'abc'], FLAGS, 'export')).message).toMatch(/expects a number/);
    expect(usage(() => parseArgs(['--full=yes'], FLAGS, 'sync')).message).toMatch(/takes no value/);
    expect(usage(() => intFlag({ snapshot: 1.5 }, 'snapshot', 'export')).message).toMatch(/positive whole number/);
  });

  it('treats everything after -- as positionals', () => {
    expect(parseArgs(['--', '--full'], FLAGS, 'x').positionals).toEqual(['--full']);
  });
});

describe('suggest', () => {
  it('finds near misses and prefixes, not far ones', () => {
    expect(levenshtein('snapshot', 'snapshots')).toBe(1);
    expect(suggest('snapshot', ['sync', 'snapshots', 'verify'])).toBe('snapshots');
    expect(suggest('ver', ['sync', 'snapshots', 'verify'])).toBe('verify');
    expect(suggest('qqqqqq', ['sync', 'verify'])).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { WbsyncError } from '../domain/errors.js';
import { hoistGlobalFlags } from './run.js';

describe('global flags before the command', () => {
  it('should move --config, --db, --log-level and --json written before the command to after it', () => {
    expect(hoistGlobalFlags(['--config', 'w.json', 'sync'])).toEqual(['sync', '--config', 'w.json']);
    expect(hoistGlobalFlags(['--db=x.db', '--json', '--log-level', 'warn', 'snapshots', '--full'])).toEqual(['snapshots', '--db=x.db', '--json', '--log-level', 'warn', '--full']);
  });

  it('should leave everything else alone', () => {
    expect(hoistGlobalFlags(['sync', '--config', 'w.json'])).toEqual(['sync', '--config', 'w.json']);
    expect(hoistGlobalFlags(['--help'])).toEqual(['--help']);
    expect(hoistGlobalFlags(['--version'])).toEqual(['--version']);
    expect(hoistGlobalFlags([])).toEqual([]);
  });

  it('should error and change nothing if a global flag before the command has no value or no command follows', () => {
    expect(() => hoistGlobalFlags(['--config'])).toThrow(WbsyncError);
    expect(() => hoistGlobalFlags(['--config', 'w.json'])).toThrow(/must be followed by a command/);
    expect(() => hoistGlobalFlags(['--json', '--full', 'sync'])).toThrow(/must be followed by a command/);
  });
});

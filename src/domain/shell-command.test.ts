import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { commandLine, shellWord } from './shell-command.js';

const hostile = [
  'x$(touch${IFS}/tmp/PWNED)',
  "it's",
  '`id`',
  'a b',
  '',
  '; rm -rf /',
  '$HOME',
  'line\nbreak',
  "''",
  '\\',
  '!event',
  '*',
  '~root',
  '-flag',
];

describe('shellWord', () => {
  it('leaves plain ids and numbers as they are', () => {
    expect(shellWord('65f0c0ffee0000000000bbbb')).toBe('65f0c0ffee0000000000bbbb');
    expect(shellWord('12')).toBe('12');
    expect(shellWord('--to-snapshot')).toBe('--to-snapshot');
  });

  it('quotes the empty word so it stays an argument', () => {
    expect(shellWord('')).toBe("''");
  });

  it('reaches a real shell as exactly the word it was given, never as a command', () => {
    for (const word of hostile) {
      const line = `printf '%s\\0' ${commandLine(['a', word, 'z'])}`;
      const out = execFileSync('/bin/sh', ['-c', line], { encoding: 'utf8' });
      expect(out.split('\0').slice(0, 3)).toEqual(['a', word, 'z']);
    }
  });
});

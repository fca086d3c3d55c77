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

describe('shellWord and characters that change how a line reads', () => {
  const tricky = [
    'invoice\u202Egpj.exe',
    '\u2066x\u2069 y',
    'a\u200Eb\u200Fc\u061Cd',
    "zero\u200Bwidth's",
    'esc\u001B[31mred',
    'bell\u0007\rback',
    'tag\u{E0041}\u{E007F}',
    '\u202E',
    'tab\tand\nnewline\u202Dx',
    'x\n✔ restore complete',
    'a\n\nb',
    '\nlead',
    'trailing\n',
    'trailing\u202E\n\n',
    '\n',
    'mid\n\u202E\nend',
  ];

  it('never prints one raw: each is spelled by printf, the rest single-quoted', () => {
    for (const word of tricky) {
      const q = shellWord(word);
      expect(q).not.toMatch(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200B\u200E\u200F\u202A-\u202E\u2066-\u2069\u{E0000}-\u{E007F}]/u);
    }
    expect(shellWord('invoice\u202Egpj.exe')).toBe(`'invoice'"$(printf '\\342\\200\\256')"'gpj.exe'`);
    expect(shellWord('\u202E')).toBe(`"$(printf '\\342\\200\\256')"`);
  });

  it('keeps a word with a newline or a tab on one line (a name cannot fake a line of output)', () => {
    expect(shellWord('x\n✔ restore complete')).toBe(`'x'"$(printf '\\012\\342\\234\\224')"' restore complete'`);
    expect(shellWord('a\tb')).toBe(`'a'"$(printf '\\011')"'b'`);
    for (const word of tricky) {
      // a newline that ends the word has nothing after it to fake: it stays inside the closing quotes
      expect(shellWord(word).replace(/\n+'$/, "'"), JSON.stringify(word)).not.toMatch(/[\t\n]/);
    }
  });

  it('reaches a real shell as exactly the word it was given', () => {
    for (const word of tricky) {
      const line = `printf '%s\\0' ${commandLine(['a', word, 'z'])}`;
      const out = execFileSync('/bin/sh', ['-c', line], { encoding: 'utf8' });
      expect(out.split('\0').slice(0, 3)).toEqual(['a', word, 'z']);
    }
  });
});

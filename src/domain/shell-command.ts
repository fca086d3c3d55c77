// Every command wbsync prints or sends (alerts, log lines, the console, CLI hints, the demo) is built
// here, one word at a time, so that nothing a service, a file or a person supplied can run as a
// command when the line is pasted into a POSIX shell. A word holding a character that would change
// how the printed line reads (a bidi override, a control character, an invisible format character:
// display-text.ts), a newline or a tab never carries it raw: that character is spelled as
// `"$(printf '\342\200\256')"` (its UTF-8 bytes in octal, POSIX printf), so the line stays one
// line, shows in the order the shell reads it, and the terminal escaping of CLI output leaves it intact.

import { HIDDEN_CHARACTERS, hasHiddenCharacters } from './display-text.js';

/** Words that need no quoting: letters, digits and a few punctuation marks a shell treats literally. */
const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** Characters a printed word never carries raw: the hidden ones (display-text.ts), newline and tab. */
const SPELLED = new RegExp(`${HIDDEN_CHARACTERS.source.slice(0, -1)}\\t\\n]`, 'u');

/** One argument as a POSIX shell word: as is when plainly safe, otherwise single-quoted. */
export function shellWord(word: string): string {
  if (word.length > 0 && PLAIN.test(word)) return word;
  if (hasHiddenCharacters(word) || /[\t\n]/.test(word)) return spelledByPrintf(word);
  return singleQuoted(word);
}

function singleQuoted(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

const octal = (s: string): string => [...new TextEncoder().encode(s)].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('');

/**
 * The word as adjacent pieces: visible runs single-quoted, each run of spelled characters from
 * printf, so the printed line stays one line and shows no control. A command substitution drops
 * trailing newlines, so a run ending in a newline takes the next character with it; newlines that
 * end the word (nothing to take) stay raw inside single quotes: pasted, the word is still exact.
 */
function spelledByPrintf(word: string): string {
  const chars = [...word];
  const pieces: string[] = [];
  let visible = '';
  for (let i = 0; i < chars.length; ) {
    if (!SPELLED.test(chars[i]!)) {
      visible += chars[i++];
      continue;
    }
    let run = '';
    while (i < chars.length && SPELLED.test(chars[i]!)) run += chars[i++];
    if (run.endsWith('\n') && i === chars.length) {
      const body = run.replace(/\n+$/, '');
      const tail = run.slice(body.length);
      if (visible) pieces.push(singleQuoted(visible));
      visible = '';
      if (body) pieces.push(`"$(printf '${octal(body)}')"`);
      pieces.push(singleQuoted(tail));
      break;
    }
    if (run.endsWith('\n')) run += chars[i++];
    if (visible) pieces.push(singleQuoted(visible));
    visible = '';
    pieces.push(`"$(printf '${octal(run)}')"`);
  }
  if (visible) pieces.push(singleQuoted(visible));
  return pieces.join('');
}

/** A whole command line from its argument vector, each word quoted as needed. */
export function commandLine(argv: readonly (string | number)[]): string {
  return argv.map((w) => shellWord(String(w))).join(' ');
}

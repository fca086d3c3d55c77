// Every command wbsync prints or sends (alerts, log lines, the console, CLI hints, the demo) is built
// here, one word at a time, so that nothing a service, a file or a person supplied can run as a
// command when the line is pasted into a POSIX shell. A word holding a character that would change
// how the printed line reads (a bidi override, a control character, an invisible format character:
// display-text.ts) never carries it raw: that character is spelled as `"$(printf '\342\200\256')"`
// (its UTF-8 bytes in octal, POSIX printf), so the line shows in the order the shell reads it and
// the terminal escaping of CLI output leaves it intact.

import { HIDDEN_CHARACTERS, hasHiddenCharacters } from './display-text.js';

/** Words that need no quoting: letters, digits and a few punctuation marks a shell treats literally. */
const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** One argument as a POSIX shell word: as is when plainly safe, otherwise single-quoted. */
export function shellWord(word: string): string {
  if (word.length > 0 && PLAIN.test(word)) return word;
  if (hasHiddenCharacters(word)) return hiddenAsPrintf(word);
  return singleQuoted(word);
}

function singleQuoted(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The word as adjacent pieces: visible runs single-quoted, each hidden character from printf. */
function hiddenAsPrintf(word: string): string {
  const pieces: string[] = [];
  let last = 0;
  for (const m of word.matchAll(HIDDEN_CHARACTERS)) {
    if (m.index > last) pieces.push(singleQuoted(word.slice(last, m.index)));
    const octal = [...new TextEncoder().encode(m[0])].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('');
    pieces.push(`"$(printf '${octal}')"`);
    last = m.index + m[0].length;
  }
  if (last < word.length) pieces.push(singleQuoted(word.slice(last)));
  return pieces.join('');
}

/** A whole command line from its argument vector, each word quoted as needed. */
export function commandLine(argv: readonly (string | number)[]): string {
  return argv.map((w) => shellWord(String(w))).join(' ');
}

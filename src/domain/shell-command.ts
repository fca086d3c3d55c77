// Every command wbsync prints or sends (alerts, log lines, the console, CLI hints, the demo) is built
// here, one word at a time, so that nothing a service, a file or a person supplied can run as a
// command when the line is pasted into a POSIX shell.

/** Words that need no quoting: letters, digits and a few punctuation marks a shell treats literally. */
const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** One argument as a POSIX shell word: as is when plainly safe, otherwise single-quoted. */
export function shellWord(word: string): string {
  if (word.length > 0 && PLAIN.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A whole command line from its argument vector, each word quoted as needed. */
export function commandLine(argv: readonly (string | number)[]): string {
  return argv.map((w) => shellWord(String(w))).join(' ');
}

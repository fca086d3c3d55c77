// Text shown to people. Three forms:
// - `showBidiControls` (the console, alert messages): bidirectional embeddings, overrides and
//   isolates (U+202A–U+202E, U+2066–U+2069) are shown as their code, so `invoice<U+202E>gpj.exe`
//   cannot pass for "invoiceexe.jpg". Right-to-left text itself needs none of them and reads as typed.
// - `terminalText` (everything the CLI prints for a person, log lines read on a terminal): every
//   character that changes how a line reads without showing itself — control characters but tab
//   and newline, DEL, C1 controls, bidi controls and marks (U+202A–U+202E, U+2066–U+2069,
//   U+200E/U+200F, U+061C) and the other invisible format characters (zero-width space, word
//   joiner, BOM, soft hyphen, line/paragraph separators, tags…) — is written as its escape
//   (`\u202e`), so a line reads as it is (no "Trojan Source"). U+200C/U+200D (zero-width
//   non-joiner and joiner) are left: scripts such as Persian and emoji sequences need them, and
//   they reorder nothing.
// - `shown` (one string from outside — a name, a value, an error text from the service, a file or a
//   person — where a formatter puts it into a human line): the same escapes, and the newline, CR
//   and tab too (`\n`, `\r`, `\t`), so the string stays on its one line and a name cannot fake a
//   line of its own (`x\n✔ restore complete`). `terminalText` cannot: it sees the whole output and
//   keeps the formatters' newlines. A backslash that would read as the start of such an escape is
//   doubled (`\\u202e`), so a name holding the text `\u202e` never looks like an escaped U+202E.

const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;

export function showBidiControls(s: string): string {
  return s.replace(BIDI_CONTROLS, (c) => `⟨U+${c.codePointAt(0)!.toString(16).toUpperCase()}⟩`);
}

/** The characters `terminalText` escapes (see the header). */
export const HIDDEN_CHARACTERS =
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u00AD\u061C\u180E\u200B\u200E\u200F\u2028-\u202E\u2060-\u206F\uFEFF\uFFF9-\uFFFB\u{E0000}-\u{E007F}]/gu;

/** One character's escape: `\u202e`, or `\u{e0041}` beyond the BMP. */
export function escapeCharacter(c: string): string {
  const n = c.codePointAt(0)!;
  return n > 0xffff ? `\\u{${n.toString(16)}}` : `\\u${n.toString(16).padStart(4, '0')}`;
}

/** `s` with every hidden character (HIDDEN_CHARACTERS) written as its escape; tab and newline kept. */
export function terminalText(s: string): string {
  return s.replace(HIDDEN_CHARACTERS, escapeCharacter);
}

/** Whether `s` holds a character `terminalText` would escape. */
export function hasHiddenCharacters(s: string): boolean {
  HIDDEN_CHARACTERS.lastIndex = 0;
  const found = HIDDEN_CHARACTERS.test(s);
  HIDDEN_CHARACTERS.lastIndex = 0;
  return found;
}

/** A `\uXXXX` or `\u{X…}` escape as escapeCharacter writes it. */
const ESCAPE_WRITTEN = /\\u(?:\{([0-9a-fA-F]{1,6})\}|([0-9a-fA-F]{4}))/g;

/**
 * `s` with every escape of a hidden character (as escapeCharacter writes it: `\u202e`) read back
 * as `replacement`; any other backslash sequence is left as it is. For text a person sends back after
 * we showed it escaped (the console's search box): what they saw is what they meant.
 */
export function hiddenEscapesReplaced(s: string, replacement: string): string {
  return s.replace(ESCAPE_WRITTEN, (m: string, braced?: string, four?: string) => {
    const n = parseInt(braced ?? four!, 16);
    return n <= 0x10ffff && hasHiddenCharacters(String.fromCodePoint(n)) ? replacement : m;
  });
}

/** The escapes `shown` writes for the characters terminalText keeps. */
const LINE_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** What `shown` escapes: every hidden character, tab and newline included, and the backslash. */
const SHOWN_ESCAPED = new RegExp(`${HIDDEN_CHARACTERS.source.slice(0, -1)}\\t\\n\\\\]`, 'gu');

/** The characters after a backslash that make it read as an escape `shown` writes. */
const ESCAPE_START = /^[\\nrtu]/;

/**
 * One outside string (from the service, a file or a person) as it goes into a human line: one
 * visible line, nothing hidden. Newline, CR and tab as `\n`, `\r`, `\t`, every other hidden
 * character as terminalText writes it (`\u202e`), and a backslash doubled where it would read as
 * the start of one of those escapes (before `\`, n, r, t, u, an escape, or at the end), so every
 * shown string reads back to exactly one original. Ordinary text, right-to-left scripts and a
 * lone backslash (`C:\Data`) are left as they are.
 */
export function shown(value: string | number): string {
  const s = String(value);
  SHOWN_ESCAPED.lastIndex = 0;
  if (!SHOWN_ESCAPED.test(s)) return s;
  const pieces: string[] = [];
  for (const c of s) pieces.push(c === '\\' ? c : (LINE_ESCAPES[c] ?? (hasHiddenCharacters(c) ? escapeCharacter(c) : c)));
  for (let i = 0; i < pieces.length; i++) {
    if (pieces[i] === '\\' && (i === pieces.length - 1 || ESCAPE_START.test(pieces[i + 1]!))) pieces[i] = '\\\\';
  }
  return pieces.join('');
}

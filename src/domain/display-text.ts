// Text shown to people. Two forms:
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

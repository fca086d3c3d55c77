// Text shown to people (the console, alert messages): bidirectional embeddings, overrides and
// isolates (U+202A–U+202E, U+2066–U+2069) are shown as their code, so `invoice<U+202E>gpj.exe`
// cannot pass for "invoiceexe.jpg". Right-to-left text itself needs none of them and reads as typed.

const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;

export function showBidiControls(s: string): string {
  return s.replace(BIDI_CONTROLS, (c) => `⟨U+${c.codePointAt(0)!.toString(16).toUpperCase()}⟩`);
}

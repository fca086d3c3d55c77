import { describe, expect, it } from 'vitest';
import { hasHiddenCharacters, showBidiControls, terminalText } from './display-text.js';

describe('terminalText', () => {
  it('escapes bidi controls and marks so a line reads as it is', () => {
    expect(terminalText('invoice\u202Egpj.exe')).toBe('invoice\\u202egpj.exe');
    expect(terminalText('\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061C')).toBe(
      '\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c',
    );
  });

  it('escapes control and invisible format characters, keeps tab and newline', () => {
    expect(terminalText('a\u001B[2Jb\rc\u0000d\u007F\u0085')).toBe('a\\u001b[2Jb\\u000dc\\u0000d\\u007f\\u0085');
    expect(terminalText('zero\u200Bwidth\u2060joiner\uFEFFbom\u00ADsoft\u2028line')).toBe('zero\\u200bwidth\\u2060joiner\\ufeffbom\\u00adsoft\\u2028line');
    expect(terminalText('tag\u{E0041}')).toBe('tag\\u{e0041}');
    expect(terminalText('one\ttwo\nthree')).toBe('one\ttwo\nthree');
  });

  it('leaves ordinary text alone, right-to-left scripts and joiners included', () => {
    for (const s of ['plain ascii', 'שלום עולם', 'مرحبا', 'می\u200Cخواهم', '👨\u200D👩\u200D👧', 'café ✓ – “quotes”']) {
      expect(terminalText(s)).toBe(s);
      expect(hasHiddenCharacters(s)).toBe(false);
    }
  });

  it('hasHiddenCharacters answers the same on every call (no regex state left behind)', () => {
    for (let i = 0; i < 3; i++) expect(hasHiddenCharacters('x\u202Ey')).toBe(true);
  });
});

describe('showBidiControls', () => {
  it('shows the code of an override', () => {
    expect(showBidiControls('a\u202Eb')).toBe('a⟨U+202E⟩b');
  });
});

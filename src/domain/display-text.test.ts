import { describe, expect, it } from 'vitest';
import { hasHiddenCharacters, hiddenEscapesReplaced, showBidiControls, shown, terminalText } from './display-text.js';

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

/** Reads a shown string back (the test's proof that the escaping is unambiguous). */
function unshown(s: string): string {
  return s.replace(/\\(\\|n|r|t|u\{([0-9a-f]+)\}|u([0-9a-f]{4}))?/g, (m, esc: string | undefined, wide?: string, four?: string) => {
    if (esc === undefined) return '\\';
    if (esc === '\\') return '\\';
    if (esc === 'n') return '\n';
    if (esc === 'r') return '\r';
    if (esc === 't') return '\t';
    return String.fromCodePoint(parseInt((wide ?? four)!, 16));
  });
}

describe('shown', () => {
  it('keeps an outside string on one visible line: newline, CR, tab and every control escaped', () => {
    expect(shown('x\n✔ restore complete')).toBe('x\\n✔ restore complete');
    expect(shown('a\r\nb\tc')).toBe('a\\r\\nb\\tc');
    expect(shown('x\u001B[2Jy')).toBe('x\\u001b[2Jy');
    expect(shown('invoice\u202Egpj.exe')).toBe('invoice\\u202egpj.exe');
    expect(shown('nel\u0085ls\u2028tag\u{E0041}')).toBe('nel\\u0085ls\\u2028tag\\u{e0041}');
    expect(shown(42)).toBe('42');
  });

  it('tells a literal escape from an escaped character', () => {
    expect(shown('invoice\\u202egpj.exe')).toBe('invoice\\\\u202egpj.exe');
    expect(shown('invoice\\u202egpj.exe')).not.toBe(shown('invoice\u202Egpj.exe'));
    expect(shown('a\\nb')).toBe('a\\\\nb');
    expect(shown('a\\nb')).not.toBe(shown('a\nb'));
    expect(shown('trailing\\')).toBe('trailing\\\\');
    // a backslash before an escaped character would read as the start of it
    expect(shown('a\\\u202E')).toBe('a\\\\\\u202e');
    // a backslash that reads as nothing else stays single
    expect(shown('C:\\Data\\Boards')).toBe('C:\\Data\\Boards');
  });

  it('leaves ordinary text alone, right-to-left scripts and joiners included', () => {
    for (const s of ['plain ascii', 'שלום עולם', 'مرحبا', 'می\u200Cخواهم', '👨\u200D👩\u200D👧', 'café ✓ – “quotes”', '']) expect(shown(s)).toBe(s);
  });

  it('writes nothing hidden, reads back to its string, and is what terminalText leaves alone', () => {
    const alphabet = ['a', 'u', 'n', 'r', 't', '0', '{', '}', '\\', '\n', '\r', '\t', '\u001B', '\u0085', '\u202E', '\u200B', '\u{E0041}', 'ש', '✔'];
    let seed = 7;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 5000; i++) {
      const s = Array.from({ length: next() % 12 }, () => alphabet[next() % alphabet.length]).join('');
      const out = shown(s);
      expect(out).not.toMatch(/[\n\r\t]/);
      expect(hasHiddenCharacters(out)).toBe(false);
      expect(terminalText(out)).toBe(out);
      expect(unshown(out), JSON.stringify(s)).toBe(s);
    }
  });
});

describe('hiddenEscapesReplaced', () => {
  it('reads back what terminalText wrote for hidden characters, and only that', () => {
    for (const s of ['invoice\u202Egpj.exe', 'a\u001B[2Jb\u0000c', 'zero\u200Bwidth\uFEFFbom', 'tag\u{E0041}x']) {
      expect(hiddenEscapesReplaced(terminalText(s), '\u0000')).toBe(s.replace(/[\u202E\u001B\u0000\u200B\uFEFF\u{E0041}]/gu, '\u0000'));
    }
    expect(hiddenEscapesReplaced('end\\u202eof', ' ')).toBe('end of');
    expect(hiddenEscapesReplaced('tag\\u{e0041}x', ' ')).toBe('tag x');
  });

  it('leaves escapes of visible characters, malformed ones and other backslashes alone', () => {
    for (const s of ['caf\\u00e9', 'tab\\u0009', 'short\\u202', 'braced\\u{110000}', 'odd\\u{}', 'path\\to\\file', 'plain text']) {
      expect(hiddenEscapesReplaced(s, ' ')).toBe(s);
    }
  });
});

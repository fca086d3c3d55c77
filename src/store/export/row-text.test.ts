import { describe, expect, it } from 'vitest';
import { csvField, csvLine, jsonLine, parseCsv } from './row-text.js';

const HOSTILE = [
  'plain', '', ' ', 'a,b', 'say "hi"', '"', '""', 'line1\nline2', 'cr\rlf\r\n', '=SUM(A1:A9)', '+1', '-1', '@cmd', '\ttab',
  'naïve — 日本語 🦆 עברית', '\u2028\u2029', 'trailing,', ',leading', '\\back\\slash', '\'quote',
];

describe('CSV and JSON Lines rows', () => {
  it('quotes only what RFC 4180 requires and doubles quotes', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('x\ny')).toBe('"x\ny"');
    expect(csvField('=SUM(A1)')).toBe('=SUM(A1)'); // byte-exact: no formula escaping
    expect(csvField(null)).toBe('');
    expect(csvField('')).toBe('""');
    expect(csvField(1.5)).toBe('1.5');
    expect(csvField(0)).toBe('0');
    expect(csvLine(['a', null, 2])).toBe('a,,2\r\n');
  });

  it('round-trips hostile strings byte for byte, NULL apart from the empty string', () => {
    const rows = [HOSTILE, HOSTILE.map(() => null), [...HOSTILE].reverse()];
    const text = rows.map(csvLine).join('');
    expect(parseCsv(text)).toEqual(rows);
    expect(Buffer.from(parseCsv(text)[0]!.join('|'), 'utf8').equals(Buffer.from(HOSTILE.join('|'), 'utf8'))).toBe(true);
  });

  it('writes one JSON object per line whatever the strings hold', () => {
    const cols = HOSTILE.map((_, i) => `c${i}`);
    const line = jsonLine(cols, HOSTILE);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1).includes('\n')).toBe(false);
    expect(Object.values(JSON.parse(line) as Record<string, string>)).toEqual(HOSTILE);
    expect(JSON.parse(jsonLine(['n', 'x'], [3, null]))).toEqual({ n: 3, x: null });
  });

  it('refuses malformed CSV rather than guessing', () => {
    expect(() => parseCsv('"open')).toThrow(/unterminated/);
    expect(() => parseCsv('"a"b\r\n')).toThrow(/unexpected/);
  });
});

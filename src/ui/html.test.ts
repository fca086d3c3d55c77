import { describe, expect, it } from 'vitest';
import { clip, escapeHtml, html, query, trusted } from './html.js';
import { cellText } from './pages/cells.js';

describe('html templates', () => {
  it('escapes every interpolated string, attribute quotes included', () => {
    const evil = `<script>alert("x")</script>' onload='x' \`tick\` & more`;
    const out = html`<p title="${evil}">${evil}</p>`.text;
    expect(out).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onload=&#39;x&#39; &#96;tick&#96; &amp; more">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onload=&#39;x&#39; &#96;tick&#96; &amp; more</p>',
    );
  });

  it('keeps nested fragments and lists as markup, drops null, undefined and false', () => {
    const items = ['a<b', 'c'];
    expect(html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>${null}${undefined}${false}${0}`.text).toBe('<ul><li>a&lt;b</li><li>c</li></ul>0');
    expect(html`${trusted('<br>')}`.text).toBe('<br>');
  });

  it("writes every hidden character as the terminal does (shown()'s spelling), right-to-left text and ordinary non-ASCII as typed", () => {
    expect(escapeHtml('a\u0000b\u0007c\nd\te\r\n')).toBe('a\\u0000b\\u0007c\nd\te\r\n');
    expect(escapeHtml('\u202Eevil\u202C')).toBe('\\u202eevil\\u202c');
    expect(escapeHtml('invoice\u202Egpj.exe')).toBe('invoice\\u202egpj.exe');
    expect(escapeHtml('\u2066a\u2067b\u2068c\u2069\u202A\u202B\u202D')).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
    // zero-width space, marks, BOM, C1 controls, a tag character
    expect(escapeHtml('a\u200Bb\u200Ec\u200Fd\uFEFFe\u0085f\u009Bg\u{E0041}')).toBe('a\\u200bb\\u200ec\\u200fd\\ufeffe\\u0085f\\u009bg\\u{e0041}');
    // ordinary non-ASCII as it is: accents, CJK, emoji (a ZWJ sequence needs U+200D), RTL scripts
    for (const ok of ['Café naïve', '東京タワー', '👩\u200D👩\u200D👧 🎉', 'مرحبا שלום', 'می\u200Cخواهم']) expect(escapeHtml(ok)).toBe(ok);
    // never twice: entities once, a terminal escape already in a message left as it is
    expect(escapeHtml('a & b \\u202e')).toBe('a &amp; b \\u202e');
    expect(escapeHtml(escapeHtml('\u202E'))).toBe('\\u202e');
    // in attribute values (titles, option values) too
    expect(html`<option value="${'x\u202Ey'}">${'x\u202Ey'}</option>`.text).toBe('<option value="x\\u202ey">x\\u202ey</option>');
  });

  it('clips by characters, not UTF-16 units', () => {
    expect(clip('👩‍👩‍👧'.repeat(2), 3)).toBe('👩\u200D👩…');
    expect(clip('short', 10)).toBe('short');
  });

  it('builds query strings with every part encoded', () => {
    expect(query({ a: 'x y', b: undefined, c: 3, d: '&=' })).toBe('?a=x%20y&c=3&d=%26%3D');
    expect(query({})).toBe('');
  });
});

describe('cell text', () => {
  it('reads timelines, labelled values, lists and people', () => {
    expect(cellText('{"startDate":"2026-01-08","endDate":"2026-01-30"}')).toBe('2026-01-08 → 2026-01-30');
    expect(cellText('{"label":"Done","color":"green"}')).toBe('Done');
    expect(cellText('{"a":1,"b":{"c":2}}')).toBe('a: 1, b: {"c":2}');
    expect(cellText('["x","y"]')).toBe('x, y');
    expect(cellText('65f0c0ffee0000000000aaaa', 80, new Map([['65f0c0ffee0000000000aaaa', 'Ada Lovelace']]))).toBe('Ada Lovelace');
    expect(cellText('{not json')).toBe('{not json');
    expect(cellText(null)).toBe('');
  });
});

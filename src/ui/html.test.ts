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

  it('shows control characters as U+FFFD, bidi overrides and isolates as their code, right-to-left text as typed', () => {
    expect(escapeHtml('a\u0000b\u0007c\nd')).toBe('a\uFFFDb\uFFFDc\nd');
    expect(escapeHtml('\u202Eevil\u202C')).toBe('⟨U+202E⟩evil⟨U+202C⟩');
    expect(escapeHtml('invoice\u202Egpj.exe')).toBe('invoice⟨U+202E⟩gpj.exe');
    expect(escapeHtml('\u2066a\u2067b\u2068c\u2069\u202A\u202B\u202D')).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
    expect(escapeHtml('مرحبا שלום \u200F')).toBe('مرحبا שלום \u200F');
    // in attribute values (titles, option values) too
    expect(html`<option value="${'x\u202Ey'}">${'x\u202Ey'}</option>`.text).toBe('<option value="x⟨U+202E⟩y">x⟨U+202E⟩y</option>');
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

// The console's one escaping helper: `html` tagged templates escape every interpolated value
// unless it is already Html (a fragment built the same way), so a string from the service cannot
// become markup. Attribute values are quoted by the templates, and quotes are escaped here too.

import { escapeCharacter, HIDDEN_CHARACTERS } from '../domain/display-text.js';

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type Renderable = Html | string | number | boolean | null | undefined | readonly Renderable[];

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/** Text as HTML text or a quoted attribute value. Every character that changes how text reads
 * without showing itself (display-text.ts's HIDDEN_CHARACTERS: C0 and C1 controls, bidi overrides,
 * isolates and marks, zero-width space, BOM…) is written as the terminal writes it (`\u202e`), so a
 * name cannot reorder or hide what a page says. Tab, newline and CR stay (they reorder nothing in
 * HTML); U+200C/U+200D stay (scripts and emoji sequences need them); backslashes are left as they
 * are, so a message already escaped for the terminal is not escaped twice. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"'`]/g, (c) => ENTITIES[c]!).replace(HIDDEN_CHARACTERS, (c) => (c === '\r' ? c : escapeCharacter(c)));
}

function render(v: Renderable): string {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof Html) return v.text;
  if (Array.isArray(v)) return (v as readonly Renderable[]).map(render).join('');
  return escapeHtml(String(v));
}

export function html(strings: TemplateStringsArray, ...values: Renderable[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new Html(out);
}

/** Markup we wrote ourselves (never service data). */
export function trusted(s: string): Html {
  return new Html(s);
}

/** A query string from parts, each part URL-encoded; undefined parts are left out. */
export function query(parts: Record<string, string | number | undefined>): string {
  const kv = Object.entries(parts).filter(([, v]) => v !== undefined && v !== '');
  return kv.length ? `?${kv.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join('&')}` : '';
}

/** Long strings (5,000-character names) cut for tables; the full text stays on the entity's page. */
export function clip(s: string, max = 120): string {
  const chars = [...s];
  return chars.length > max ? `${chars.slice(0, max).join('')}…` : s;
}

// The console's one escaping helper: `html` tagged templates escape every interpolated value
// unless it is already Html (a fragment built the same way), so a string from the service cannot
// become markup. Attribute values are quoted by the templates, and quotes are escaped here too.

import { showBidiControls } from '../domain/display-text.js';

export { showBidiControls };

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type Renderable = Html | string | number | boolean | null | undefined | readonly Renderable[];

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/** Text as HTML text or a quoted attribute value. NUL and other C0 controls (bar tab and newlines) show as U+FFFD; bidi controls as their code. */
export function escapeHtml(s: string): string {
  return showBidiControls(s.replace(/[&<>"'`]/g, (c) => ENTITIES[c]!).replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, '\uFFFD'));
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

// How a cell's value reads on a page: strings as they are, JSON values compact, long ones clipped.
import type { Cell, Column } from '../../domain/entities.js';
import { clip, html, type Html } from '../html.js';

export function cellText(value: string | null, max = 80): string {
  if (value === null) return '';
  let shown = value;
  if (/^[[{]/.test(value)) {
    try {
      const v: unknown = JSON.parse(value);
      if (Array.isArray(v)) shown = v.map((x) => (typeof x === 'object' && x !== null ? (((x as Record<string, unknown>).name ?? (x as Record<string, unknown>).label ?? JSON.stringify(x)) as string) : String(x))).join(', ');
      else if (v && typeof v === 'object') shown = ((v as Record<string, unknown>).label ?? (v as Record<string, unknown>).name ?? (v as Record<string, unknown>).text ?? value) as string;
    } catch {
      // not JSON after all: shown as typed
    }
  }
  return clip(String(shown), max);
}

/** Cells of one record keyed by column id. */
export function cellsByColumn(cells: readonly Cell[]): Map<string, Map<string, Cell>> {
  const out = new Map<string, Map<string, Cell>>();
  for (const c of cells) {
    if (c.columnId === null) continue;
    let m = out.get(c.recordId);
    if (!m) out.set(c.recordId, (m = new Map()));
    m.set(c.columnId, c);
  }
  return out;
}

export function cellTd(columns: readonly Column[], byColumn: Map<string, Cell> | undefined): Html[] {
  return columns.map((col) => html`<td><div class="cell text">${cellText(byColumn?.get(col.id)?.value ?? null)}</div></td>`);
}

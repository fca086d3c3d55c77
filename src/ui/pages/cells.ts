// How a cell's value reads on a page: strings as they are, JSON values compact, long ones clipped.
import type { Cell, Column } from '../../domain/entities.js';
import { memberNames } from '../../domain/member-name.js';
import type { ConsoleReads } from '../../store/read/index.js';
import type { StateReader } from '../../store/port.js';
import { clip, html, type Html } from '../html.js';

/** A timeline as `start → end`, a labelled value by its label, anything else as `key: value` pairs. */
function objectText(o: Record<string, unknown>): string {
  if ('startDate' in o || 'endDate' in o) return `${String(o.startDate ?? '…')} → ${String(o.endDate ?? '…')}`;
  const named = o.label ?? o.name ?? o.text;
  if (typeof named === 'string') return named;
  return Object.entries(o)
    .map(([k, x]) => `${k}: ${typeof x === 'object' && x !== null ? JSON.stringify(x) : String(x)}`)
    .join(', ');
}

/** Display names of a workspace's members by user id (people cells hold ids). */
export function peopleOf(state: StateReader, workspaceId: string): ReadonlyMap<string, string> {
  return memberNames(state.members(workspaceId));
}

/**
 * Names for the ids the shown cells hold: people (members of the workspace) and the records that
 * relation cells point at, as of the same snapshot (one seek per id).
 */
export function namesFor(cells: readonly Cell[], state: StateReader, reads: ConsoleReads, workspaceId: string): ReadonlyMap<string, string> {
  const names = new Map(peopleOf(state, workspaceId));
  const ids = new Set<string>();
  for (const c of cells) for (const m of (c.value ?? '').matchAll(/\b[0-9a-f]{24}\b/g)) if (!names.has(m[0])) ids.add(m[0]);
  for (const r of reads.recordsById([...ids].slice(0, 500), state.snapshotId)) names.set(r.id, r.name);
  return names;
}

export function cellText(value: string | null, max = 80, people?: ReadonlyMap<string, string>): string {
  if (value === null) return '';
  if (people?.size) value = value.replace(/\b[0-9a-f]{24}\b/g, (id) => people.get(id) ?? id);
  let shown = value;
  if (/^[[{]/.test(value)) {
    try {
      const v: unknown = JSON.parse(value);
      if (Array.isArray(v)) shown = v.map((x) => (typeof x === 'object' && x !== null ? (((x as Record<string, unknown>).name ?? (x as Record<string, unknown>).label ?? JSON.stringify(x)) as string) : String(x))).join(', ');
      else if (v && typeof v === 'object') shown = objectText(v as Record<string, unknown>);
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

/** Columns whose values are ids (people, linked records): shown by name. Text stays as typed. */
export function namesColumn(col: Pick<Column, 'type'>): boolean {
  return col.type === 'person' || col.type === 'people' || col.type === 'relation';
}

export function cellTd(columns: readonly Column[], byColumn: Map<string, Cell> | undefined, names?: ReadonlyMap<string, string>): Html[] {
  return columns.map((col) => html`<td><div class="cell text">${cellText(byColumn?.get(col.id)?.value ?? null, 80, namesColumn(col) ? names : undefined)}</div></td>`);
}

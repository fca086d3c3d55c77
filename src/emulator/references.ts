// The resolved reference view: for every record of a board, relation cells (with
// settings.displayField) and reference columns (settings.via/field/aggregate) resolved into
// `{items: [{recordId, name, value}], display}`.

import type { ColumnDoc, Json, ModuleDoc, RecordDoc } from './docs.js';
import { displayName } from './touch.js';
import type { World } from './world.js';

interface Item {
  recordId: string;
  name: string;
  value: string | null;
}
type Resolved = { items: Item[]; display: string };

function text(v: Json | undefined): string | null {
  if (v === undefined || v === null) return null;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

export function linkedIds(value: Json | undefined): string[] {
  if (Array.isArray(value)) return value.filter((x): x is string => typeof x === 'string');
  if (typeof value !== 'string' || value.trim() === '') return [];
  try {
    const parsed = JSON.parse(value) as Json;
    return Array.isArray(parsed) ? parsed.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return value.split(',').map((s) => s.trim()).filter(Boolean);
  }
}

function aggregate(kind: string, items: Item[]): string {
  if (kind === 'count') return String(items.length);
  const nums = items.map((i) => Number(i.value)).filter((n) => Number.isFinite(n));
  if (kind === 'list' || !['sum', 'avg', 'min', 'max'].includes(kind)) {
    return items.map((i) => i.value ?? i.name).filter((s) => s !== '').join(', ');
  }
  if (nums.length === 0) return '';
  const sum = nums.reduce((a, b) => a + b, 0);
  const result = kind === 'sum' ? sum : kind === 'avg' ? sum / nums.length : kind === 'min' ? Math.min(...nums) : Math.max(...nums);
  return String(Math.round(result * 100) / 100);
}


export function resolveReferences(w: World, mod: ModuleDoc): Record<string, Record<string, Resolved>> {
  const s = w.state;
  const cols = s.moduleColumns(mod._id);
  const relations = cols.filter((c) => c.type === 'relation' && typeof c.settings.displayField === 'string');
  const references = cols.filter((c) => c.type === 'reference' && typeof c.settings.via === 'string');
  const out: Record<string, Record<string, Resolved>> = {};
  if (relations.length === 0 && references.length === 0) return out;

  const cellOf = (recordId: string, columnId: string): Json | undefined => s.valueOf(recordId, columnId)?.value;
  const linked = (rec: RecordDoc, relation: ColumnDoc): RecordDoc[] =>
    linkedIds(cellOf(rec._id, relation._id))
      .map((id) => s.liveRecord(id))
      .filter((r): r is RecordDoc => r !== undefined);

  for (const id of s.recordsByModule.get(mod._id)) {
    const rec = s.records.get(id);
    if (!rec || rec.isDeleted) continue;
    const scope = rec.parentRecord ? 'subrecord' : 'record';
    const entry: Record<string, Resolved> = {};
    for (const col of relations) {
      if (col.scope !== scope || !s.valueOf(rec._id, col._id)) continue;
      const field = String(col.settings.displayField);
      const items = linked(rec, col).map((r) => ({ recordId: r._id, name: displayName(r.name), value: text(cellOf(r._id, field)) }));
      entry[col._id] = { items, display: aggregate('list', items) };
    }
    for (const col of references) {
      if (col.scope !== scope) continue;
      const via = s.liveColumn(String(col.settings.via));
      if (!via || !s.valueOf(rec._id, via._id)) continue;
      const field = typeof col.settings.field === 'string' ? col.settings.field : '';
      let targets = linked(rec, via);
      if (col.settings.targetScope === 'subrecord') targets = targets.flatMap((r) => s.liveSubRecords(r._id));
      const items = targets.map((r) => ({ recordId: r._id, name: displayName(r.name), value: text(cellOf(r._id, field)) }));
      const kind = typeof col.settings.aggregate === 'string' ? col.settings.aggregate : 'list';
      entry[col._id] = { items, display: aggregate(kind, items) };
    }
    if (Object.keys(entry).length > 0) out[rec._id] = entry;
  }
  return out;
}

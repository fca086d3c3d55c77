// Human output of a diff: grouped by module, one line per entity, fields as before → after.

import { shown } from '../../domain/display-text.js';
import type { EntityDiff } from './trees.js';
import type { DiffReport } from './scope.js';

const SIGN = { added: '+', removed: '-', changed: '~' } as const;

function show(v: unknown): string {
  const s = typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v ?? null);
  return s.length > 80 ? `${s.slice(0, 77)}…` : s;
}

export function formatEntry(e: EntityDiff): string {
  const head = `  ${SIGN[e.change]} ${e.entity} ${shown(e.label)}`;
  if (!e.fields?.length) return `${head}${e.change === 'changed' ? '' : ` (${e.change})`}`;
  return `${head}: ${e.fields.map((f) => `${shown(f.field)} ${show(f.before)} → ${show(f.after)}`).join('; ')}`;
}

export function formatDiff(r: DiffReport): string {
  const against = r.against === 'live' ? 'the live service' : `snapshot ${r.against}`;
  const lines = [`snapshot ${r.snapshot} vs ${against}: ${r.differences === 0 ? 'no differences' : `${r.differences} difference(s)`}`];
  if (r.pairing) lines.push(`  (${shown(r.pairing)})`);
  for (const m of r.modules) {
    if (!m.entries.length && !m.notes.length) continue;
    const copy = m.otherModuleId !== m.moduleId ? ` → restored as ${m.otherModuleId}` : '';
    lines.push(`module ${shown(m.name)} (${m.moduleId}${copy})${m.entries.length ? '' : ': no differences'}`);
    for (const e of m.entries) lines.push(formatEntry(e));
    for (const n of m.notes) lines.push(`  note: ${shown(n)}`);
  }
  for (const w of r.workspaces) {
    lines.push(`workspace ${w.workspaceId}`);
    for (const e of w.entries) lines.push(formatEntry(e));
  }
  return lines.join('\n');
}

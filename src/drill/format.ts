// Human output of a drill: a table per workspace (compared, equal, differing, not restorable),
// then what differs, named, and what cannot be restored, with why (grouped: a reason said once).

import { shown } from '../domain/display-text.js';
import { DRILL_ENTITIES, type DrillItem } from './compare.js';
import type { DrillReport } from './drill.js';

const WIDTH = 12;
const pad = (s: string | number, n = WIDTH): string => String(s).padStart(n);

function itemLine(i: DrillItem): string {
  return `    ${i.entity} ${i.module ? `${shown(i.module)} / ` : ''}${shown(i.label.replace(/\s+/g, ' ').slice(0, 80))}: ${shown(i.reason)}`;
}

/** Not-restorable items grouped by reason: a large workspace would repeat one reason thousands of times. */
function groupedLines(items: DrillItem[]): string[] {
  const groups = new Map<string, DrillItem[]>();
  for (const i of items) {
    const k = `${i.entity}\u0000${i.reason}`;
    groups.set(k, [...(groups.get(k) ?? []), i]);
  }
  const out: string[] = [];
  for (const list of groups.values()) {
    if (list.length <= 3) out.push(...list.map(itemLine));
    else out.push(`    ${list.length} ${list[0]!.entity}s (${list.slice(0, 3).map((i) => shown(i.label.slice(0, 40))).join(', ')}, …): ${shown(list[0]!.reason)}`);
  }
  return out;
}

export function formatDrill(r: DrillReport): string {
  const lines = [`drill of snapshot ${r.snapshot} into ${shown(r.service)}: ${r.ok ? 'everything restorable restored and equal' : 'FAILED'} in ${(r.durationMs / 1000).toFixed(1)} s`];
  for (const w of r.workspaces) {
    lines.push('', `workspace ${shown(w.name)} (${w.workspaceId})${w.restoredId ? ` → restored as ${w.restoredId}` : ''}: ${w.ok ? 'ok' : 'FAILED'}, ${w.requests} requests`);
    if (w.error) lines.push(`  ${shown(w.error)}`);
    lines.push(`  ${'entity'.padEnd(WIDTH)}${pad('compared')}${pad('equal')}${pad('differing')}${pad('not restorable', 16)}`);
    for (const e of DRILL_ENTITIES) {
      const t = w.entities[e];
      if (t.compared + t.differing + t.notRestorable === 0) continue;
      lines.push(`  ${e.padEnd(WIDTH)}${pad(t.compared)}${pad(t.equal)}${pad(t.differing)}${pad(t.notRestorable, 16)}`);
    }
    if (w.differing.length) {
      lines.push('  differing (restorable, but not restored as it was):');
      const shown = w.differing.slice(0, 200);
      lines.push(...shown.map((i) => itemLine(i)));
      if (w.differing.length > shown.length) lines.push(`    … and ${w.differing.length - shown.length} more (--json lists them all)`);
    }
    if (w.notRestorable.length) lines.push('  not restorable, and why:', ...groupedLines(w.notRestorable));
  }
  lines.push('', 'never compared (no restore can carry them over):', ...r.notRestorableFields.map((f) => `  - ${f}`));
  return lines.join('\n');
}

// What restore commands print: counts, the dry run's plan, what was not restored.

import { shown } from '../../domain/display-text.js';
import type { NotRestored, PlanSummary } from '../../restore/index.js';

export function countsLine(counts: Record<string, number>): string {
  const parts = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${n}`);
  return parts.length ? parts.join(', ') : 'nothing';
}

export function planLines(plan: PlanSummary): string[] {
  const lines = [`plan (dry run, nothing written; at most ${plan.writesAtMost} writes):`];
  plan.phases.forEach((p, i) => {
    lines.push(`  ${i + 1}. ${shown(p.name)}: ${Object.entries(p.ops).map(([op, n]) => `${op} ×${n}`).join(', ')}`);
  });
  return lines;
}

export function notRestoredLines(list: NotRestored[]): string[] {
  if (!list.length) return [];
  return ['not restored:', ...list.map((n) => `  - ${n.entity} ${shown(n.label)} (${n.id}): ${shown(n.reason)}${n.value !== undefined ? ` — value ${JSON.stringify(n.value)}` : ''}`)];
}

// What restore commands print: counts, the dry run's plan, what was not restored.

import { shown } from '../../domain/display-text.js';
import type { NotRestored, PlanSummary, RepointReport } from '../../restore/index.js';

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

type RepointedColumn = RepointReport['columns'][number];

/** "Hiring › " for what belongs to another module than the command's ("the workspace › " for a workspace automation). */
export function ownerPrefix(x: { owner?: { name: string } }): string {
  return x.owner ? `${shown(x.owner.name)} › ` : '';
}

export function repointHow(c: RepointedColumn): string {
  switch (c.how) {
    case 'pending':
      if (c.type === 'relation') return 're-pointed in place; declared where the service keeps settings create-only (a relation column is not made anew)';
      return 're-pointed in place, or made anew where the service keeps settings create-only';
    case 're-pointed':
      return 're-pointed in place';
    case 'recreated':
      return `made anew as ${c.newId} (the service keeps settings create-only), the old one deleted`;
    case 'not re-pointed':
      return 'NOT re-pointed (see below)';
  }
}

/** What a module restore re-pointed (a dry run: will re-point) at the copy. */
export function repointLines(r: RepointReport, dryRun: boolean): string[] {
  const out: string[] = [];
  if (r.columns.length) out.push(`columns whose settings named the deleted module (${r.columns.length}):`, ...r.columns.map((c) => `  ${ownerPrefix(c)}${shown(c.name)} (${c.id}): ${repointHow(c)}`));
  if (r.automations.length) out.push(`automations naming it, ${dryRun ? 'to be re-pointed' : 're-pointed'} to the copy (${r.automations.length}):`, ...r.automations.map((a) => `  ${ownerPrefix(a)}${shown(a.name)} (${a.id})`));
  return out;
}

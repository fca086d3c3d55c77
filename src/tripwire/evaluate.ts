// The tripwire, pure: what changed per module between two snapshots in, findings out — mass
// changes above the configured thresholds, each with who did it (where the feed says) and the
// ready-to-run command that undoes it from the snapshot before.

import { commandLine } from '../domain/shell-command.js';
import type { Actor, ModuleChanges } from '../store/change-counts.js';

export interface TripwireThresholds {
  recordsPercent: number;
  minRecords: number;
  cellsPercent: number;
  minCells: number;
  amendmentsPercent: number;
  minAmendments: number;
}

export interface Finding {
  workspaceId: string;
  moduleId: string;
  moduleName: string;
  /** One line: what happened. */
  summary: string;
  /** Each tripped measure, readable. */
  what: string[];
  by: Actor[];
  /** The snapshot before the changes (held from pruning). */
  snapshot: number;
  /** The command that undoes it. */
  undo: string;
}

const over = (n: number, of: number, percent: number, min: number): boolean => n >= min && n * 100 > of * percent;
const pct = (n: number, of: number): string => (of > 0 ? `${Math.round((n * 100) / of)}%` : 'all');

export function evaluateTripwire(changes: readonly ModuleChanges[], t: TripwireThresholds, before: number): Finding[] {
  const findings: Finding[] = [];
  for (const m of changes) {
    const by = m.actors;
    const who = by.length ? ` by ${by.map((a) => `${a.name} (${a.rows} rows)`).join(', ')}` : '';
    if (m.moduleGone) {
      findings.push({
        workspaceId: m.workspaceId,
        moduleId: m.moduleId,
        moduleName: m.moduleName,
        summary: `module ${m.moduleName} was deleted${who}`,
        what: [`module deleted with ${m.records.before} records`],
        by,
        snapshot: before,
        undo: commandLine(['wbsync', 'restore', 'module', m.moduleId, '--snapshot', before]),
      });
      continue;
    }
    const what: string[] = [];
    if (over(m.records.removed, m.records.before, t.recordsPercent, t.minRecords)) what.push(`${m.records.removed} of ${m.records.before} records archived or deleted (${pct(m.records.removed, m.records.before)})`);
    const columns = m.columns.filter((c) => over(c.changed + c.cleared, c.before, t.cellsPercent, t.minCells));
    for (const c of columns) {
      what.push(
        c.deleted
          ? `column ${c.name} deleted with its ${c.before} cells`
          : `${c.changed + c.cleared} of ${c.before} cells of column ${c.name} changed or cleared (${pct(c.changed + c.cleared, c.before)}: ${c.changed} changed, ${c.cleared} cleared)`,
      );
    }
    if (over(m.amendments.deleted, m.amendments.before, t.amendmentsPercent, t.minAmendments)) what.push(`${m.amendments.deleted} of ${m.amendments.before} amendments deleted (${pct(m.amendments.deleted, m.amendments.before)})`);
    if (!what.length) continue;
    if (m.collectionsDeleted.length) what.push(`collections deleted: ${m.collectionsDeleted.map((c) => c.name).join(', ')}`);
    // only cells of some columns: put back just those; anything else: the whole module, in place
    const onlyCells = columns.length > 0 && what.length === columns.length;
    const scope = onlyCells ? columns.flatMap((c) => ['--column', c.columnId]) : [];
    findings.push({
      workspaceId: m.workspaceId,
      moduleId: m.moduleId,
      moduleName: m.moduleName,
      summary: `mass change in module ${m.moduleName}${who}: ${what[0]}${what.length > 1 ? ` (+${what.length - 1} more)` : ''}`,
      what,
      by,
      snapshot: before,
      undo: commandLine(['wbsync', 'rollback', '--module', m.moduleId, '--to-snapshot', before, ...scope]),
    });
  }
  return findings;
}

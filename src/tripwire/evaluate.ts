// The tripwire, pure: what changed per module between two snapshots in, findings out — mass
// changes above the configured thresholds, each pinned: who did it (the actors whose feed rows make
// up the bulk of it; one person fixing a row is not blamed), when (their rows' time range), which
// columns or kinds, and the snapshots before and after. The undo names the incident recorded from
// it (`wbsync rollback --incident N`), so the command itself carries nothing the service supplied.

import { commandLine } from '../domain/shell-command.js';
import type { Actor, ModuleChanges, Writer } from '../store/read/index.js';

export interface TripwireThresholds {
  recordsPercent: number;
  minRecords: number;
  cellsPercent: number;
  minCells: number;
  amendmentsPercent: number;
  minAmendments: number;
}

export type FindingKind = 'mass-change' | 'module-deleted' | 'workspace-lost';

export interface Finding {
  kind: FindingKind;
  workspaceId: string;
  moduleId: string | null;
  moduleName: string;
  /** One line: what happened. */
  summary: string;
  /** Each tripped measure, readable. */
  what: string[];
  /** The actors blamed (whose rows make up the damage). */
  by: Actor[];
  /** The snapshot before the changes (held from pruning) and the one that recorded them. */
  snapshot: number;
  damageSnapshot: number;
  /** Columns whose cells tripped it (a cells-only damage is rolled back column by column). */
  columns: string[];
  /** What the damage covers, in rollback kinds; empty: the whole module. */
  kinds: string[];
  /** The blamed actors' first and last feed row (null when the feed shows none). */
  damageFrom: string | null;
  damageTo: string | null;
  feedRows: number;
}

const over = (n: number, of: number, percent: number, min: number): boolean => n >= min && n * 100 > of * percent;
const pct = (n: number, of: number): string => (of > 0 ? `${Math.round((n * 100) / of)}%` : 'all');

/**
 * The actors who did the bulk: the one with the most rows, and anyone with at least a tenth of
 * that (and more than one row). A member who fixed a row or two beside a bulk is not blamed; and
 * a pinned rollback keeps every cell more than one actor wrote anyway (rollback-damage.ts).
 */
export function blame(writers: readonly Writer[]): Writer[] {
  const sorted = [...writers].sort((a, b) => b.rows - a.rows);
  const top = sorted[0]?.rows ?? 0;
  return sorted.filter((w, i) => i === 0 || (w.rows > 1 && w.rows * 10 >= top));
}

function merge(list: readonly Writer[]): Writer[] {
  const by = new Map<string, Writer>();
  for (const w of list) {
    const x = by.get(w.id);
    if (!x) by.set(w.id, { ...w });
    else by.set(w.id, { ...x, rows: x.rows + w.rows, from: w.from < x.from ? w.from : x.from, to: w.to > x.to ? w.to : x.to });
  }
  return [...by.values()].sort((a, b) => b.rows - a.rows);
}

const whoLine = (by: readonly Actor[]): string => (by.length ? ` by ${by.map((a) => `${a.name} (${a.rows} rows)`).join(', ')}` : '');

/** The cell counts of one column, in the console's words. */
export function cellLine(c: { name: string; added: number; changed: number; removed: number; deleted: boolean; before: number }, of: number): string {
  if (c.deleted) return `column ${c.name} deleted with its ${c.before} cells`;
  const n = c.added + c.changed + c.removed;
  return `column ${c.name}: ${c.added} added · ${c.changed} changed · ${c.removed} removed (${n} of ${of} cells, ${pct(n, of)})`;
}

export function evaluateTripwire(changes: readonly ModuleChanges[], t: TripwireThresholds, before: number, after: number): Finding[] {
  const findings: Finding[] = [];
  for (const m of changes) {
    const base = { workspaceId: m.workspaceId, moduleId: m.moduleId, moduleName: m.moduleName, snapshot: before, damageSnapshot: after };
    if (m.moduleGone) {
      findings.push({
        ...base,
        kind: 'module-deleted',
        summary: `module ${m.moduleName} was deleted${whoLine(m.actors)}`,
        what: [`module deleted with ${m.records.before} records`],
        by: m.actors.map((a) => ({ id: a.id, name: a.name, rows: a.rows })),
        columns: [],
        kinds: [],
        damageFrom: null,
        damageTo: null,
        feedRows: m.actors.reduce((n, a) => n + a.rows, 0),
      });
      continue;
    }
    const what: string[] = [];
    if (over(m.records.removed, m.records.before, t.recordsPercent, t.minRecords)) what.push(`${m.records.removed} of ${m.records.before} records archived or deleted (${pct(m.records.removed, m.records.before)})`);
    // a column's share is of the cells it could hold: one per record (a filled-in empty cell counts)
    const of = (c: ModuleChanges['columns'][number]): number => Math.max(c.before, m.records.before);
    const columns = m.columns.filter((c) => (c.deleted ? over(c.before, c.before, t.cellsPercent, t.minCells) : over(c.added + c.changed + c.removed, of(c), t.cellsPercent, t.minCells)));
    for (const c of columns) what.push(cellLine(c, of(c)));
    if (over(m.amendments.deleted, m.amendments.before, t.amendmentsPercent, t.minAmendments)) what.push(`${m.amendments.deleted} of ${m.amendments.before} amendments deleted (${pct(m.amendments.deleted, m.amendments.before)})`);
    if (!what.length) continue;
    if (m.collectionsDeleted.length) what.push(`collections deleted: ${m.collectionsDeleted.map((c) => c.name).join(', ')}`);
    // only cells of some columns: pin those columns and the actors who wrote them; anything else:
    // the whole module, pinned to the actors who did most of what the feed shows
    const onlyCells = columns.length > 0 && what.length === columns.length && columns.every((c) => !c.deleted);
    const blamed = onlyCells ? blame(merge(columns.flatMap((c) => blame(c.writers)))) : blame(m.actors);
    const times = blamed;
    findings.push({
      ...base,
      kind: 'mass-change',
      summary: `mass change in module ${m.moduleName}${whoLine(blamed)}: ${what[0]}${what.length > 1 ? ` (+${what.length - 1} more)` : ''}`,
      what,
      by: blamed.map((w) => ({ id: w.id, name: w.name, rows: w.rows })),
      columns: onlyCells ? columns.map((c) => c.columnId) : [],
      kinds: onlyCells ? ['cells'] : [],
      damageFrom: times.length ? times.map((w) => w.from).sort()[0]! : null,
      damageTo: times.length ? times.map((w) => w.to).sort().at(-1)! : null,
      feedRows: blamed.reduce((n, w) => n + w.rows, 0),
    });
  }
  return findings;
}

/** The argument vector that undoes an incident: the pinned rollback, or the module's restore. */
// Both pause the module's and the workspace's automations meanwhile: a value put back is not a person
// changing it now, and must not set off "Won → completed" on deals nobody won today.
export function undoArgv(f: Pick<Finding, 'kind' | 'moduleId' | 'snapshot' | 'workspaceId'>, incidentId: number): string[] | null {
  if (f.kind === 'module-deleted') return ['wbsync', 'restore', 'module', f.moduleId!, '--snapshot', String(f.snapshot), '--pause-automations'];
  // nothing was lost (the pass held it): the access comes back, or the loss is accepted by hand
  if (f.kind === 'workspace-lost') return null;
  return ['wbsync', 'rollback', '--incident', String(incidentId), '--pause-automations'];
}

export const undoLine = (argv: readonly string[]): string => commandLine(argv);

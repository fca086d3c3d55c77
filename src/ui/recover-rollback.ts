// The recover page's rollback preview: `rollback`'s own planner on the two sides read by
// store/read/module-window.ts (the snapshot, and the latest backup standing in for the service), except
// that the value changes of plain cells are counted in SQL and only the first page of them is read,
// and the fields put back on plain records likewise (store/read/record-census.ts says which records
// are plain and why their count is the planner's): the planner plans the first page of those (the
// page lists its writes) and the records that are not plain, and is told which records it is given
// all the same were counted (`fieldsCounted`). With at least a page of plain records planned, every
// record write the page can list is the planner's.
//
// As the command's dry run, the other modules' columns and automations (here as the latest backup
// holds them) are given to the planner when the snapshot holds a collection or column that is gone:
// those naming one are re-pointed (or declared), and listed.
//
// Why the count is the planner's (restore/rollback/plan-content.ts, planCells). A plain cell is one
// of a plain column — held at both snapshots, not a relation, whose settings (at either) name no
// collection or other column of the snapshot — in a top-level record both snapshots hold. Such a
// record is never recreated nor declared (only records gone by the latest backup, or found by id,
// are), and such a column is never recreated nor re-pointed (only gone columns are recreated, and a
// live column is re-pointed only when its settings name a recreated collection or column). So for a
// plain cell the planner's verdict is the three-way one with the latest backup as both "after" and
// "live": put back exactly when its value differs, never a conflict (the preview names no later
// edits), its record live and its column usable — clearCell when the snapshot held no value,
// setCell when the cell is there now, createCell otherwise — and it lists nothing else. A plain
// cell whose value did not change plans nothing (the window reads changed cells only). Every other
// cell is planned as before; the planner writes its cells in one run, ordered by (held at the
// snapshot first) record then id, so the first page merges both by that order.

import { memberName } from '../domain/member-name.js';
import type { Column, Member } from '../domain/entities.js';
import { collectRefs, foreignFromState, planRollback, repointReport, ROLLBACK_KINDS, summarisePlan, treeFromState, type FieldChange, type NotRestored, type PlanSummary, type RepointReport } from '../restore/index.js';
import { binaryCmp, readModuleWindow, recordNamesAt, withContent, type PlainCellWrite } from '../store/read/index.js';
import type { StateReader, Store } from '../store/port.js';
import { lastHeldIn, strandedRecords } from './recover-stranded.js';

export interface RollbackPreview {
  counts: Record<string, number>;
  summary: PlanSummary;
  notRestored: NotRestored[];
  /** The first `listed` fields put back, in the planner's order, and how many there are. */
  writes: FieldChange[];
  writeCount: number;
  newRecords: { id: string; name: string }[];
  /** What names the structure the rollback recreates — the module's, the workspace's and the other
   * modules' (those carry `owner`) columns and automations — re-pointed at the copies. */
  repointed: RepointReport;
}


/** Columns at both snapshots whose changed cells are counted in SQL (see above). */
export function plainRollbackColumns(base: readonly Column[], after: readonly Column[], baseStructure: ReadonlySet<string>): string[] {
  const now = new Map(after.map((c) => [c.id, c]));
  const names = (c: Column): boolean => collectRefs(c.settings ?? {}, baseStructure).some((r) => r !== c.id);
  return base.filter((c) => {
    const l = now.get(c.id);
    return l !== undefined && c.type !== 'relation' && l.type !== 'relation' && !names(c) && !names(l);
  }).map((c) => c.id);
}

type Key = { inBase: boolean; recordId: string; id: string };
// (in SQLite's BINARY order, as the planner's cells and the census's are read)
const before = (a: Key, b: Key): boolean => (a.inBase !== b.inBase ? a.inBase : (binaryCmp(a.recordId, b.recordId) || binaryCmp(a.id, b.id)) < 0);

export function previewRollback(
  store: Store,
  opts: { moduleId: string; snapshot: number; latest: number; snapState: StateReader; latestState: StateReader; columnId?: string; attribution: string; listed: number },
): RollbackPreview {
  const { moduleId, snapshot, latest, snapState, latestState } = opts;
  const baseColumns = snapState.columns(moduleId);
  const structure = new Set([...snapState.collections(moduleId).map((c) => c.id), ...baseColumns.map((c) => c.id)]);
  const plain = plainRollbackColumns(baseColumns, latestState.columns(moduleId), structure);
  const selected = opts.columnId ? plain.filter((c) => c === opts.columnId) : plain;
  // (with --column no record's own fields are selected: no plain record plans anything)
  const window = readModuleWindow(store.db, moduleId, snapshot, latest, plain, selected, opts.listed, !opts.columnId);
  // the ledger: an erased record or person's amendment is listed as not restorable, as the command will
  const base = treeFromState(withContent(snapState, moduleId, window.base), moduleId, store.db)!;
  const after = treeFromState(withContent(latestState, moduleId, window.after), moduleId)!;
  const ws = base.module.workspaceId;
  // the other modules may name a collection or column of the snapshot that is gone (recreated, or
  // declared when left out), as the command's readSides decides: read theirs (from the latest
  // backup) only then, so a preview with no structure gone pays nothing for them
  const now = new Set([...after.collections, ...after.columns].map((x) => x.id));
  const gone = [...base.collections, ...base.columns].some((x) => !now.has(x.id));
  // a deleted collection's records the command would find by id (recover-stranded.ts)
  // (the module's feed rows only: the rest of the workspace's feed is never decoded)
  const found = strandedRecords(base, after, () => latestState.moduleActivity(ws, moduleId), lastHeldIn(store));
  const r = planRollback({
    base,
    after,
    // the latest backup stands in for the service (read once: the planner does not change its inputs)
    live: after,
    selection: { kinds: new Set(ROLLBACK_KINDS), kindsNamed: false, columns: opts.columnId ? new Set([opts.columnId]) : null, records: null, collections: null, touched: null },
    force: false,
    found,
    workspaceId: ws,
    attribution: opts.attribution,
    userNames: new Map(latestState.members(ws).map((m) => [m.userId, memberName(m)])),
    // automations naming what the rollback would recreate are re-pointed (counted in the preview)
    automations: [...after.automations, ...latestState.workspaceAutomations(ws)],
    ...(gone ? { foreign: foreignFromState(latestState, ws, moduleId) } : {}),
    // the plain records read beyond the first page: counted in SQL (window.records)
    fieldsCounted: window.records.counted,
  });

  // the planner's cell writes sit in one run between the record writes and the amendments'
  const writes = r.writes;
  let from = writes.findIndex((w) => w.entity === 'cell');
  if (from < 0) from = writes.findIndex((w) => w.entity === 'amendment');
  if (from < 0) from = writes.length;
  let to = from;
  while (to < writes.length && writes[to]!.entity === 'cell') to++;
  const census = { counts: window.census.counts, first: window.census.first.slice(0, Math.max(opts.listed - from, 0)) };
  const added = census.counts.clearCell + census.counts.setCell + census.counts.createCell;

  const listed: FieldChange[] = writes.slice(0, Math.min(from, opts.listed));
  if (listed.length < opts.listed) {
    // where each planned cell write sorts: its cell at the snapshot, else the one now
    const cells = new Map<string, Key>();
    for (const c of window.after.cells) cells.set(c.id, { inBase: false, recordId: c.recordId, id: c.id });
    for (const c of window.base.cells) cells.set(c.id, { inBase: true, recordId: c.recordId, id: c.id });
    const label = labeller(base.columns, after.columns, recordNamesAt(store.db, moduleId, latest, census.first.map((w) => w.recordId)));
    let i = from;
    let j = 0;
    while (listed.length < opts.listed && (i < to || j < census.first.length)) {
      const p = census.first[j];
      if (i < to && (!p || before(cells.get(writes[i]!.id)!, p))) listed.push(writes[i++]!);
      else listed.push(fieldChange(p!, label)), j++;
    }
    listed.push(...writes.slice(to, to + opts.listed - listed.length));
  }

  const counts = { ...r.counts };
  const summary = summarisePlan(r.plan);
  // the plain records' steps (one updateRecord each, one write) and fields put back, counted in SQL
  const records = opts.columnId ? { steps: 0, fields: 0 } : { steps: window.records.steps, fields: Object.values(window.records.writes).reduce((a, b) => a + b, 0) };
  counts['records'] = (counts['records'] ?? 0) + records.steps;
  if (added) counts['cells'] = (counts['cells'] ?? 0) + added;
  addSteps(summary, { updateRecord: records.steps, ...census.counts });
  return {
    counts,
    summary,
    notRestored: r.plan.notRestored,
    writes: listed,
    writeCount: writes.length + added + records.fields,
    newRecords: r.newRecords.map((x) => ({ id: x.id, name: x.name })),
    repointed: repointReport(r.repoint, null),
  };
}

/** Steps counted in SQL added to the plan's "records and cells" phase (each one write, none chained),
 * the phase made where the planner puts it when it planned none: after the structure. */
function addSteps(summary: PlanSummary, ops: Record<string, number>): void {
  const n = Object.values(ops).reduce((a, b) => a + b, 0);
  if (!n) return;
  let phase = summary.phases.find((p) => p.name === 'records and cells');
  if (!phase) {
    phase = { name: 'records and cells', steps: 0, ops: {}, writesAtMost: 0, chained: 0 };
    const structural = new Set(['collections', 'columns', 'columns naming recreated columns', 'columns re-pointed at recreated ones']);
    const at = summary.phases.findIndex((p) => !structural.has(p.name));
    summary.phases.splice(at < 0 ? summary.phases.length : at, 0, phase);
  }
  // (in the planner's order: record steps, then cells)
  const merged: Record<string, number> = {};
  for (const [op, k] of Object.entries({ updateRecord: 0, ...phase.ops })) merged[op] = k + (ops[op] ?? 0);
  for (const [op, k] of Object.entries(ops)) if (!(op in merged) && k) merged[op] = k;
  if (!merged['updateRecord']) delete merged['updateRecord'];
  phase.ops = merged;
  phase.steps += n;
  phase.writesAtMost += n;
  summary.writesAtMost += n;
}

/** "record · column" as planCells writes it: the live record's name, the live column's. */
function labeller(baseColumns: readonly Column[], afterColumns: readonly Column[], records: ReadonlyMap<string, string>): (w: PlainCellWrite) => string {
  const columns = new Map([...baseColumns, ...afterColumns].map((c) => [c.id, c.name]));
  return (w) => `${records.get(w.recordId) ?? w.recordId} · ${columns.get(w.columnId) ?? w.columnId}`;
}

const fieldChange = (w: PlainCellWrite, label: (w: PlainCellWrite) => string): FieldChange => ({ entity: 'cell', id: w.id, label: label(w), field: 'value', live: w.live, base: w.base, after: w.live });

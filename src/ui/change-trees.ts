// The two sides of "what changed" for one module, cut down to what changed: the module's small
// structure whole (collections, columns, automations, grants), and only the records, cells and
// amendment threads with versions written or closed between the snapshots — plus the records their
// labels name. Unchanged entities present on both sides yield no difference, so the pure
// comparison (diffModuleTrees, as `wbsync diff --against M`) gives the same entries as over the
// whole module, at the cost of what changed rather than of the module's size.

import type { ChangedModule, ConsoleReads } from '../store/read/index.js';
import type { StateReader } from '../store/port.js';
import type { ModuleTree } from '../restore/index.js';

function side(state: StateReader, reads: ConsoleReads, c: ChangedModule, labelRecords: ReadonlySet<string>): ModuleTree | null {
  const module = state.module(c.moduleId);
  if (!module) return null;
  const n = state.snapshotId;
  const records = reads.recordsById([...c.records, ...labelRecords], n);
  const amendments = [...new Set(c.amendmentRecords)].flatMap((r) => reads.amendmentsOf(r, n));
  return {
    module,
    collections: state.collections(c.moduleId),
    columns: state.columns(c.moduleId),
    records,
    cells: reads.cellsById(c.cells, n),
    amendments,
    automations: state.moduleAutomations(c.moduleId),
    grants: state
      .moduleAccess(module.workspaceId)
      .filter((a) => a.moduleId === c.moduleId && a.granted)
      .map((a) => a.userId)
      .sort(),
  };
}

export function changeTrees(a: StateReader, b: StateReader, reads: ConsoleReads, c: ChangedModule): { a: ModuleTree | null; b: ModuleTree | null } {
  // records named in labels: the records of changed cells and amendments, and parents of changed sub-records
  const labels = new Set<string>(c.amendmentRecords);
  for (const n of [a.snapshotId, b.snapshotId]) {
    for (const cell of reads.cellsById(c.cells, n)) labels.add(cell.recordId);
    for (const r of reads.recordsById(c.records, n)) if (r.parentRecordId) labels.add(r.parentRecordId);
  }
  return { a: side(a, reads, c, labels), b: side(b, reads, c, labels) };
}

// A StateReader answering one module's records, cells and amendments from what the console's recover
// preview read (module-window.ts), and everything else from the state it wraps: how the very same
// planners are fed the preview's reduced reads.

import type { Collection, Column, ColumnScope, Module } from '../../domain/entities.js';
import type { StateReader } from '../port.js';
import type { ModuleContent } from './module-window.js';

/** `state`, except that the module's records, cells and amendments come from `content`. */
export function withContent(state: StateReader, moduleId: string, content: ModuleContent): StateReader {
  const pick = <T>(m: string, mine: T[], theirs: () => T[]): T[] => (m === moduleId ? mine : theirs());
  return {
    snapshotId: state.snapshotId,
    workspaces: () => state.workspaces(),
    members: (ws) => state.members(ws),
    modules: (ws) => state.modules(ws),
    module: (m): Module | null => state.module(m),
    collections: (m): Collection[] => state.collections(m),
    columns: (m, scope?: ColumnScope): Column[] => state.columns(m, scope),
    records: (m) => pick(m, content.records, () => state.records(m)),
    record: (r) => state.record(r),
    cells: (m) => pick(m, content.cells, () => state.cells(m)),
    cellsOfRecord: (r) => state.cellsOfRecord(r),
    amendments: (m) => pick(m, content.amendments, () => state.amendments(m)),
    amendmentsOfRecord: (r) => state.amendmentsOfRecord(r),
    contentOfRecords: (ids) => state.contentOfRecords(ids),
    moduleAutomations: (m) => state.moduleAutomations(m),
    workspaceAutomations: (ws) => state.workspaceAutomations(ws),
    moduleAccess: (ws) => state.moduleAccess(ws),
    activity: (ws) => state.activity(ws),
    moduleActivity: (ws, m, since) => state.moduleActivity(ws, m, since),
    creationTimes: (ws, m) => state.creationTimes(ws, m),
    unplacedSubRecords: (m) => state.unplacedSubRecords(m),
    recordsEverIn: (m, cs) => state.recordsEverIn(m, cs),
    recordCreations: (m, ids) => state.recordCreations(m, ids),
    anyActivity: () => state.anyActivity(),
    activityStoredAt: (ids) => state.activityStoredAt(ids),
    recordsStoredAt: (m) => state.recordsStoredAt(m),
    moduleSizes: (ws) => state.moduleSizes(ws),
  };
}

// The restore room's one door: everything used outside src/restore (the CLI, the daemon's drill, the
// console, the bench and the tests) is named here, and nothing outside imports a file of the room
// directly. Inside, files import one another, never this one.

// the engine: plan steps, the journal, what every command checks first, a module as one value
export type { NotRestored, PlanSummary } from './engine/plan-steps.js';
export { summarisePlan } from './engine/plan-steps.js';
export { idMapOf, moduleRestorePairs, restoredIdMap, type ModuleRestorePair } from '../store/ledgers/index.js';
export { refuse, type RestoreDeps } from './engine/preconditions.js';
export { collectRefs, translateIds } from './engine/remap.js';
export { grantsOf, readGrantsLive, treeFromLive, treeFromState, type LiveModuleReader, type ModuleTree } from './engine/tree.js';

// diff
export { canon, diffModuleTrees, type DiffOptions, type EntityDiff, type FieldChange as DiffFieldChange, type ModuleDiff } from './diff/trees.js';
export { runDiff, type DiffReport, type DiffScopeOptions } from './diff/scope.js';
export { formatDiff } from './diff/format.js';

// restore module, restore records, restore workspace
export { planRestore, type PlanInput } from './module/plan.js';
export { POSITION_UNSEEN } from './module/plan-content.js';
export { restoreModule, type RestoreModuleOptions, type RestoreModuleResult } from './module/restore-module.js';
export { restoreRecords, type RestoreRecordsOptions, type RestoreRecordsResult } from './records/restore-records.js';
export { mapUsers } from './workspace/plan-workspace.js';
export { restoreWorkspace, type RestoreWorkspaceOptions, type RestoreWorkspaceResult } from './workspace/restore-workspace.js';
export type { BatchDone } from './workspace/apply-batches.js';

// rollback
export { planRollback, ROLLBACK_KINDS, type FieldChange, type RollbackKind } from './rollback/plan.js';
export type { FoundBy } from './rollback/context.js';
export { rollback, type RollbackOptions, type RollbackResult, type RollbackScope, type RollbackTo } from './rollback/rollback.js';
export type { RepointReport } from './engine/repoint-foreign.js';
export { foreignFromState, repointReport } from './engine/repoint-foreign.js';
export { rollbackOfIncident } from './rollback/incident.js';

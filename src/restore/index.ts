// diff and restore: the public surface for the CLI, the demo and the benchmark.

export { diffModuleTrees, type DiffOptions, type EntityDiff, type ModuleDiff } from './diff.js';
export { runDiff, type DiffReport, type DiffScopeOptions } from './diff-scope.js';
export { formatDiff } from './diff-format.js';
export { planRestore, type PlanInput } from './plan.js';
export type { RestorePlan, Step, Phase, NotRestored } from './plan-steps.js';
export { restoreModule, type RestoreModuleOptions, type RestoreModuleResult } from './restore-module.js';
export type { RestoreDeps } from './preconditions.js';
export { restoreRecords, type RestoreRecordsOptions, type RestoreRecordsResult } from './restore-records.js';
export { treeFromLive, treeFromState, readGrantsLive, type ModuleTree } from './tree.js';
export { idMapOf, restoredIdMap } from './journal.js';

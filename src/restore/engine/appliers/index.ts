// Every step kind's applier, in one table the engine looks steps up in. A new planner (rollback,
// workspace restore) adds step kinds here, each with its own file and test.

import type { Step } from '../plan-steps.js';
import { accessAppliers } from './access.js';
import { contentAppliers } from './content.js';
import { inPlaceAppliers } from './in-place.js';
import { recordAppliers } from './records.js';
import { repointAppliers } from './repoint.js';
import { structureAppliers } from './structure.js';
import type { Appliers, StepApplier } from './types.js';
import { workspaceAppliers } from './workspace.js';

export type { Created, StepApplier, StepContext } from './types.js';

export const APPLIERS: Appliers = { ...structureAppliers, ...recordAppliers, ...contentAppliers, ...accessAppliers, ...inPlaceAppliers, ...workspaceAppliers, ...repointAppliers };

export function applierFor(step: Step): StepApplier {
  return APPLIERS[step.op] as StepApplier;
}

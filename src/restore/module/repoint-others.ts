// restore module: the deleted module comes back with a new id for itself, its collections and its
// columns. What the workspace's other modules and the workspace itself hold that named the old ids —
// automations ("create an item in Sales Pipeline, collection Won"), relation columns targeting the
// module, reference columns showing one of its columns — is re-pointed at the copy once it is made
// (the last phases of the plan), through the same appliers as a rollback's (../engine/repoint-foreign.ts).

import type { Phase, RestorePlan } from '../engine/plan-steps.js';
import { allSteps } from '../engine/plan-steps.js';
import { planForeignRepoint, type ForeignObjects, type Repointed } from '../engine/repoint-foreign.js';
import type { ModuleTree } from '../engine/tree.js';

/** Adds the re-pointing phases to `plan` (and what cannot be re-pointed to its notRestored); returns
 * what it re-points. */
export function planRepointOthers(plan: RestorePlan, tree: ModuleTree, foreign: ForeignObjects): Repointed[] {
  const made = new Set<string>();
  for (const s of allSteps(plan)) if (s.op === 'createModule' || s.op === 'createCollection' || s.op === 'createColumn') made.add(s.oldId);
  const dead = new Map<string, string>();
  for (const c of tree.collections) if (!made.has(c.id)) dead.set(c.id, `collection "${c.name}"`);
  for (const c of tree.columns) if (!made.has(c.id)) dead.set(c.id, `column "${c.name}"`);
  const out = planForeignRepoint({ foreign, made, dead, subject: `module ${tree.module.name}`, deadAdvice: 'this restore does not make it (see above): edit it by hand' });
  const phases: Phase[] = [
    { name: 'other modules’ columns re-pointed at the restored module', steps: out.columns },
    { name: 'automations re-pointed at the restored module', steps: out.automations },
  ];
  plan.phases.push(...phases.filter((p) => p.steps.length));
  plan.notRestored.push(...out.notRestored);
  if (out.columns.length) plan.counts.columnsRepointed = out.columns.length;
  if (out.automations.length) plan.counts.automationsRepointed = out.automations.length;
  return out.repoint;
}

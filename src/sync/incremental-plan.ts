// Decides what an incremental pass re-reads in one workspace, from the new activity rows and the
// module list. Pure: the feed and lists in, the plan out.
//
// The union of: what the activity rows name; modules whose updatedAt moved (catches writes the
// deployed service does not log, e.g. completion flips and positions); new modules. Every module
// whose updatedAt moved re-lists its parents' sub-records: a sub-record's completion or position
// writes no row and moves only the module's updatedAt, and any logged write to the module after it
// hides it — no timestamp order can tell (on the deployed service a write's feed row is stamped
// after its module touch, with other writes' touches landing in between). Modules that left the
// list are vanished. Member and access rows ask for those lists again.

import type { Activity, Module } from '../domain/entities.js';

export interface IncrementalPlan {
  /** Modules to crawl (incrementally), with why. */
  touched: Map<string, string[]>;
  /** Module ids unknown to the store: crawled fully. */
  added: Set<string>;
  /** Stored modules no longer in the list. */
  vanished: string[];
  /** Records (or sub-records) named by rows, per module. */
  namedRecords: Map<string, Set<string>>;
  /** Modules whose updatedAt moved: they may hide a write the feed does not show (on the deployed
   * service: a sub-record's completion, position or archive flag), so every parent's sub-records
   * are listed again there. */
  recheckSubRecords: Set<string>;
  membersChanged: boolean;
  accessChanged: boolean;
  /** Anything at all moved in the workspace (automations of the workspace are then re-read). */
  anyChange: boolean;
}

export interface PlanInput {
  /** Rows not stored before, newest first. */
  rows: readonly Activity[];
  modulesNow: readonly Module[];
  modulesBefore: readonly Module[];
  /** Module of a stored record, for rows that name a record but no module. */
  moduleOfRecord?: (recordId: string) => string | null;
}

function touch(plan: IncrementalPlan, moduleId: string, why: string): void {
  const reasons = plan.touched.get(moduleId);
  if (reasons) {
    if (!reasons.includes(why)) reasons.push(why);
  } else plan.touched.set(moduleId, [why]);
}

export function planIncremental(input: PlanInput): IncrementalPlan {
  const before = new Map(input.modulesBefore.map((m) => [m.id, m]));
  const now = new Map(input.modulesNow.map((m) => [m.id, m]));
  const plan: IncrementalPlan = {
    touched: new Map(),
    added: new Set(),
    vanished: [...before.keys()].filter((id) => !now.has(id)),
    namedRecords: new Map(),
    recheckSubRecords: new Set(),
    membersChanged: false,
    accessChanged: false,
    anyChange: input.rows.length > 0,
  };
  for (const m of input.modulesNow) {
    const prev = before.get(m.id);
    if (!prev) {
      plan.added.add(m.id);
      touch(plan, m.id, 'new module');
    } else if (prev.updatedAt !== m.updatedAt) {
      touch(plan, m.id, 'updatedAt moved');
      plan.recheckSubRecords.add(m.id);
    }
  }
  if (plan.vanished.length || plan.added.size) plan.anyChange = true;

  for (const row of input.rows) {
    const action = row.action.toLowerCase();
    if (action.startsWith('member')) plan.membersChanged = true;
    if (action.includes('access')) plan.accessChanged = true;
    const moduleId = row.moduleId ?? (row.recordId && input.moduleOfRecord ? input.moduleOfRecord(row.recordId) : null);
    if (!moduleId || !now.has(moduleId)) continue;
    touch(plan, moduleId, `activity ${row.action}`);
    if (row.recordId) {
      const set = plan.namedRecords.get(moduleId) ?? new Set<string>();
      set.add(row.recordId);
      plan.namedRecords.set(moduleId, set);
    }
  }
  if (plan.touched.size) plan.anyChange = true;
  return plan;
}

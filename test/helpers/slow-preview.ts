// The recover preview as the planners make it from the whole modules (what the command's dry run
// plans): the tests of the console's fast previews (recover-preview-*.test.ts) compare against it.

import { planRestore, planRollback, restoredIdMap, ROLLBACK_KINDS, summarisePlan, treeFromState } from '../../src/restore/index.js';
import type { Store } from '../../src/store/port.js';
import { memberNames } from '../../src/domain/member-name.js';
import { lastHeldIn, strandedRecords } from '../../src/ui/recover-stranded.js';

export const ATTRIBUTION = 'Restored by wbsync — originally by {author} at {createdAt}.';

export type Shown = { counts: unknown; summary: unknown; notRestored: unknown; writes: unknown[]; writeCount: number; newRecords: unknown };

/** The preview as the planners make it from the whole modules (what the command's dry run plans). */
export function slowPreview(store: Store, moduleId: string, snapshot: number, scope: 'module' | 'rollback', columnId?: string): Shown {
  const latest = store.latestCompleteSnapshot()!;
  const base = treeFromState(store.stateAt(snapshot)!, moduleId, store.db)!;
  const latestState = store.stateAt(latest)!;
  const ws = base.module.workspaceId;
  if (scope === 'module') {
    const liveIds = new Set(latestState.modules(ws).map((m) => m.id));
    const plan = planRestore({
      tree: base,
      targetWorkspaceId: ws,
      liveModuleIds: liveIds,
      restoredIds: restoredIdMap(store.db, liveIds),
      moduleNames: new Map(store.stateAt(snapshot)!.modules(ws).map((m) => [m.id, m.name])),
      memberIds: new Set(latestState.members(ws).map((m) => m.userId)),
      userNames: memberNames(store.stateAt(snapshot)!.members(ws)),
      attribution: ATTRIBUTION,
    });
    return { counts: plan.counts, summary: summarisePlan(plan), notRestored: plan.notRestored, writes: [], writeCount: 0, newRecords: [] };
  }
  const after = treeFromState(latestState, moduleId)!;
  // a deleted collection's records the command would find by id, as the preview infers them
  const found = strandedRecords(base, after, () => latestState.activity(ws), lastHeldIn(store));
  const r = planRollback({
    found,
    base,
    after,
    live: after,
    selection: { kinds: new Set(ROLLBACK_KINDS), kindsNamed: false, columns: columnId ? new Set([columnId]) : null, records: null, collections: null, touched: null },
    force: false,
    workspaceId: ws,
    attribution: ATTRIBUTION,
    userNames: memberNames(latestState.members(ws)),
    automations: [...after.automations, ...latestState.workspaceAutomations(ws)],
  });
  return { counts: r.counts, summary: summarisePlan(r.plan), notRestored: r.plan.notRestored, writes: r.writes, writeCount: r.writes.length, newRecords: r.newRecords.map((x) => ({ id: x.id, name: x.name })) };
}

export const shownPreview = (p: Shown): Shown => ({ counts: p.counts, summary: p.summary, notRestored: p.notRestored, writes: p.writes, writeCount: p.writeCount, newRecords: p.newRecords });

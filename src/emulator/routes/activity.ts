// Activity feed routes: cursor paging with `before`, filters, retention, and revert.

import type { ActivityQuery } from '../activity.js';
import type { ActivityDoc } from '../docs.js';
import { fail } from '../http-reply.js';
import type { RouteDef } from '../router.js';
import { clearCell, setCell, updateRecord } from '../writes-records.js';
import type { World } from '../world.js';
import { personActor } from '../actor.js';
import { ok } from './helpers.js';

/** Whether a row can be undone now, and if not, why (null for kinds that never can). */
export function revertState(w: World, row: ActivityDoc): { canRevert: boolean; blocker: string | null } {
  const plan = row.revert;
  if (!plan) return { canRevert: false, blocker: null };
  if (row.revertedAt) return { canRevert: false, blocker: 'already_reverted' };
  const rec = w.state.liveRecord(plan.record);
  if (!rec || !w.state.liveModule(rec.module)) return { canRevert: false, blocker: 'record_deleted' };
  if (plan.kind === 'cell' && !w.state.liveColumn(plan.column)) return { canRevert: false, blocker: 'column_deleted' };
  if (plan.kind === 'move' && !w.state.liveCollection(plan.collection)) return { canRevert: false, blocker: 'collection_deleted' };
  return { canRevert: true, blocker: null };
}

/** The deployed service's reasons for a revert it refuses, by the emulator's blocker code. */
const OBSERVED_REASONS: Readonly<Record<string, string>> = {
  already_reverted: 'This change has already been reverted',
  record_deleted: 'That record no longer exists',
  column_deleted: 'That cell no longer exists',
  collection_deleted: 'The original collection no longer exists',
};

/** Actions the deployed service can undo (its activityRevert service). */
const OBSERVED_REVERTIBLE: ReadonlySet<string> = new Set(['cell_updated', 'record_updated', 'record_moved', 'record_deleted', 'collection_updated', 'column_updated']);

/**
 * What a feed row says of its revertability. Spec: the state now. Observed: the deployed service
 * decides from the row alone (its action and whether it was reverted), with its own sentences — so
 * a row's `canRevert` never changes because of later writes elsewhere.
 */
export function shownRevertState(w: World, row: ActivityDoc): { canRevert: boolean; blocker: string | null } {
  if (!w.rules.observed) return revertState(w, row);
  if (row.revertedAt) return { canRevert: false, blocker: 'This change has already been reverted' };
  if (OBSERVED_REVERTIBLE.has(row.action)) return { canRevert: true, blocker: null };
  if (row.action.endsWith('_created')) return { canRevert: false, blocker: 'Undoing a creation would delete it and everything inside — delete it manually instead' };
  if (row.action.endsWith('_deleted')) return { canRevert: false, blocker: 'The original data no longer exists, so it cannot be restored' };
  return { canRevert: false, blocker: 'This kind of change cannot be reverted' };
}

function parseLimit(raw: string | null): number {
  const n = Math.floor(Number(raw));
  if (raw === null || raw === '' || !Number.isFinite(n)) return 50;
  return Math.min(100, Math.max(1, n));
}

export const activityRoutes: RouteDef[] = [
  {
    method: 'GET',
    template: '/activity/{workspaceId}',
    handler: ({ w, user, params, query }) => {
      const ws = w.state.liveWorkspace(params.workspaceId!);
      if (!ws) throw w.rules.notFound('workspace', params.workspaceId);
      const m = w.access.requireMember(ws._id, user);
      let before: number | null = null;
      const rawBefore = query.get('before');
      if (rawBefore !== null && rawBefore !== '') {
        before = Date.parse(rawBefore);
        if (!Number.isFinite(before)) {
          throw w.rules.observed
            ? fail(500, `Cast to date failed for value "${rawBefore.slice(0, 100)}" (type string) at path "createdAt" for model "Activity"`)
            : fail(400, 'before must be an ISO timestamp');
        }
      }
      let visibleModules: Set<string> | null = null;
      if (m.role !== 'owner' && m.role !== 'admin') {
        visibleModules = new Set();
        for (const mod of w.state.modules.values()) {
          if (mod.workspace === ws._id && !mod.isDeleted && w.access.canOpen(mod, user._id)) visibleModules.add(mod._id);
        }
      }
      const source = query.get('source');
      const actions = query.get('action');
      const q: ActivityQuery = {
        limit: parseLimit(query.get('limit')),
        before,
        moduleId: query.get('moduleId') ?? undefined,
        recordId: query.get('recordId') ?? undefined,
        userId: query.get('userId') ?? undefined,
        actions: actions ? new Set(actions.split(',').map((s) => s.trim()).filter(Boolean)) : undefined,
        source: source === 'automation' || source === 'person' ? source : undefined,
        visibleModules,
      };
      const page = w.activity.page(ws._id, q);
      return ok({
        activities: page.rows.map((row) => {
          const r = shownRevertState(w, row);
          return w.ser.activity(row, r.canRevert, r.blocker);
        }),
        hasMore: page.hasMore,
        nextCursor: page.nextCursor,
        retentionDays: w.state.config.retentionDays,
      });
    },
  },
  {
    method: 'POST',
    template: '/activity/{workspaceId}/{activityId}/revert',
    handler: ({ w, user, params }) => {
      const ws = w.state.liveWorkspace(params.workspaceId!);
      if (!ws) throw w.rules.notFound('workspace', params.workspaceId);
      w.access.requireMember(ws._id, user);
      const row = w.state.activity.get(params.activityId!);
      if (!row || row.workspace !== ws._id) throw w.rules.notFound('activity');
      const { canRevert, blocker } = revertState(w, row);
      if (w.rules.observed) {
        // the deployed service: a refused revert is a 409 whose message is the reason, in its words
        const shown = shownRevertState(w, row);
        if (!shown.canRevert) throw fail(409, shown.blocker ?? 'This kind of change cannot be reverted');
        if (!canRevert || !row.revert) throw fail(409, OBSERVED_REASONS[blocker ?? ''] ?? 'This kind of change cannot be reverted');
      }
      if (!canRevert || !row.revert) throw fail(400, `This change cannot be reverted${blocker ? ` (${blocker})` : ''}`);
      const plan = row.revert;
      const rec = w.state.liveRecord(plan.record)!;
      const mod = w.access.moduleOf(rec.module, user);
      const actor = personActor(user);
      switch (plan.kind) {
        case 'cell': {
          const col = w.state.liveColumn(plan.column)!;
          const current = w.state.valueOf(rec._id, col._id);
          if (plan.value === null) {
            if (current) clearCell(w, actor, mod, current);
          } else setCell(w, actor, mod, rec, col, plan.value);
          break;
        }
        case 'rename':
          updateRecord(w, actor, mod, rec, { name: plan.name });
          break;
        case 'move':
          updateRecord(w, actor, mod, rec, { collectionName: plan.collection });
          break;
        case 'completion':
          updateRecord(w, actor, mod, rec, { isCompleted: plan.isCompleted });
          break;
        case 'archive':
          updateRecord(w, actor, mod, rec, { isArchived: plan.isArchived });
          break;
      }
      row.revertedAt = w.state.clock.now().toISOString();
      return ok({ message: 'Change reverted successfully' });
    },
  },
];

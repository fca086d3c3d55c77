import { describe, expect, it } from 'vitest';
import type { Activity, Module } from '../domain/entities.js';
import { planIncremental } from './incremental-plan.js';

function mod(id: string, updatedAt: string): Module {
  return { id, workspaceId: 'w', name: id, description: null, icon: null, color: null, visibility: 'workspace', tags: [], createdAt: null, updatedAt, raw: {} };
}

function row(id: string, action: string, moduleId: string | null, recordId: string | null = null): Activity {
  return {
    id, workspaceId: 'w', action, message: null, targetName: null, moduleId, collectionId: null, recordId, columnId: null,
    userId: null, automationId: null, before: null, after: null, createdAt: '2026-01-01T00:00:00.000Z', raw: {},
  };
}

describe('planIncremental', () => {
  it('plans nothing when nothing moved', () => {
    const ms = [mod('a', 't1'), mod('b', 't1')];
    const plan = planIncremental({ rows: [], modulesNow: ms, modulesBefore: ms });
    expect(plan.touched.size).toBe(0);
    expect(plan.vanished).toEqual([]);
    expect(plan.anyChange).toBe(false);
  });

  it('touches modules whose updatedAt moved, new modules, and detects vanished ones', () => {
    const plan = planIncremental({
      rows: [],
      modulesBefore: [mod('a', 't1'), mod('b', 't1'), mod('gone', 't1')],
      modulesNow: [mod('a', 't2'), mod('b', 't1'), mod('new', 't3')],
    });
    expect([...plan.touched.keys()].sort()).toEqual(['a', 'new']);
    expect(plan.touched.get('a')).toEqual(['updatedAt moved']);
    expect([...plan.added]).toEqual(['new']);
    expect(plan.vanished).toEqual(['gone']);
    expect(plan.anyChange).toBe(true);
  });

  it('names records per module from rows, resolving a missing module through the store', () => {
    const ms = [mod('a', 't1'), mod('b', 't1')];
    const plan = planIncremental({
      rows: [row('1', 'cell_updated', 'a', 'r1'), row('2', 'record_updated', null, 'r2'), row('3', 'comment_added', 'a', 'r3')],
      modulesNow: ms,
      modulesBefore: ms,
      moduleOfRecord: (id) => (id === 'r2' ? 'b' : null),
    });
    expect([...plan.namedRecords.get('a')!].sort()).toEqual(['r1', 'r3']);
    expect([...plan.namedRecords.get('b')!]).toEqual(['r2']);
    expect(plan.touched.get('a')).toEqual(['activity cell_updated', 'activity comment_added']);
  });

  it('ignores rows about modules no longer listed and flags member and access rows', () => {
    const plan = planIncremental({
      rows: [row('1', 'record_created', 'deleted-module', 'r'), row('2', 'member_role_changed', null), row('3', 'module_access_changed', null)],
      modulesNow: [mod('a', 't1')],
      modulesBefore: [mod('a', 't1')],
    });
    expect(plan.touched.size).toBe(0);
    expect(plan.membersChanged).toBe(true);
    expect(plan.accessChanged).toBe(true);
    expect(plan.anyChange).toBe(true);
  });

  it('re-lists sub-records in every module whose updatedAt moved, even when a newer row seems to explain it', () => {
    // b: an unlogged sub-record completion, then a logged rename 200 ms later — the row is newer
    // than the module's updatedAt, yet the completion is only visible in the sub-record listing.
    const at = (id: string, action: string, moduleId: string, createdAt: string): Activity => ({ ...row(id, action, moduleId), createdAt });
    const plan = planIncremental({
      rows: [at('r1', 'cell_updated', 'a', '2026-01-02T00:00:00.000Z'), at('r2', 'record_updated', 'b', '2026-01-03T00:00:00.004Z')],
      modulesBefore: [mod('a', '2026-01-01T00:00:00.000Z'), mod('b', '2026-01-01T00:00:00.000Z'), mod('c', '2026-01-01T00:00:00.000Z'), mod('d', '2026-01-01T00:00:00.000Z')],
      modulesNow: [mod('a', '2026-01-02T00:00:05.000Z'), mod('b', '2026-01-03T00:00:00.000Z'), mod('c', '2026-01-04T00:00:00.000Z'), mod('d', '2026-01-01T00:00:00.000Z'), mod('e', '2026-01-05T00:00:00.000Z')],
    });
    expect([...plan.recheckSubRecords].sort()).toEqual(['a', 'b', 'c']);
    // d did not move; e is new (crawled in full, which lists every sub-record anyway)
    expect(plan.touched.has('d')).toBe(false);
    expect(plan.added.has('e')).toBe(true);
  });
});

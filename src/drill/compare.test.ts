// The drill's verdict, pure: a faithful restore (new ids, mapped users, the attribution line on
// amendments) is equal; a difference, a refused write or a missing member fails and is named; what the
// restore plan said it cannot bring back, and archived records a read cannot list, are excused.

import { describe, expect, it } from 'vitest';
import type { Member, Workspace } from '../domain/entities.js';
import { automation, sampleTree } from '../restore/fixtures.test-helpers.js';
import { mapUsers, type ModuleTree } from '../restore/index.js';
import { compareWorkspace, stringsOf, type CompareInput, type DrillSide, type IdSource } from './compare.js';

const ATTRIBUTION = 'Restored by wbsync — originally by {author} at {createdAt}.';
const ws: Workspace = { id: 'ws', name: 'Ops', slug: null, description: 'the team', icon: '🚀', banner: null, createdAt: null, updatedAt: null, raw: {} };
const member = (userId: string, role: string, over: Partial<Member> = {}): Member => ({ workspaceId: 'ws', userId, membershipId: null, role, status: 'active', firstName: userId.toUpperCase(), lastName: null, email: null, joinedAt: null, raw: {}, ...over });

/** A side over trees held here (tests change them in place). */
function sideOf(workspace: Workspace, members: Member[], workspaceAutomations: DrillSide['workspaceAutomations'], trees: ModuleTree[]): DrillSide & { trees: ModuleTree[] } {
  return {
    workspace,
    members,
    workspaceAutomations,
    trees,
    get modules() {
      return trees.map((t) => t.module);
    },
    tree: (id) => trees.find((t) => t.module.id === id) ?? null,
  };
}

function source(): DrillSide & { trees: ModuleTree[] } {
  const tree = sampleTree();
  // relations and automations into other workspaces are not what this test is about
  tree.columns = tree.columns.filter((c) => c.id !== 'k-other' && c.id !== 'k-live');
  tree.cells = tree.cells.filter((c) => c.id !== 'v3');
  tree.automations = [automation('au1', 'Move done', { trigger: { type: 'column_changed_to', column: 'k-status', value: 'Done' }, actions: [{ type: 'move_to_collection', collectionName: 'c2' }] })];
  tree.grants = ['u2'];
  return sideOf(ws, [member('u1', 'owner'), member('u2', 'member'), member('u3', 'member', { status: 'removed' })], [automation('wa1', 'Weekly', { moduleId: null, scope: 'workspace' })], [tree]);
}

/** What a faithful restore reads back as: every id new, users mapped, amendments attributed, archived
 * records unlisted (a fresh read cannot see them), run counts reset. */
function restoredFrom(s: DrillSide & { trees: ModuleTree[] }, ids: Map<string, string>, users: Map<string, string>): DrillSide & { trees: ModuleTree[] } {
  // mapUsers swaps ids inside JSON text too (relation and person cells), as the restore's values are
  const tr = <T>(v: T): T => mapUsers(v, new Map([...ids, ...users]));
  const modules = s.trees.map((t): ModuleTree => {
    const archived = new Set(t.records.filter((r) => r.isArchived).map((r) => r.id));
    return tr({
      ...t,
      records: t.records.filter((r) => !archived.has(r.id)),
      cells: t.cells.filter((c) => !archived.has(c.recordId)),
      amendments: t.amendments.filter((a) => !archived.has(a.recordId)).map((a) => ({ ...a, userId: 'u1', createdAt: '2026-11-26T00:00:00.000Z', message: a.message ? `${a.message}\n\nRestored by wbsync — originally by X at Y.` : a.message })),
      automations: t.automations.map((a) => ({ ...a, runCount: 0, lastRunAt: null })),
    });
  });
  return sideOf({ ...s.workspace, id: 'n-ws', createdAt: 'now' }, tr(s.members.filter((m) => m.status !== 'removed')), tr(s.workspaceAutomations), modules);
}

function setUp(): { input: CompareInput; restored: DrillSide & { trees: ModuleTree[] }; src: DrillSide & { trees: ModuleTree[] } } {
  const s = source();
  const ids = new Map<string, string>();
  const all = [s.workspace.id, ...s.workspaceAutomations.map((a) => a.id), ...s.trees.flatMap((t) => [t.module.id, ...t.collections, ...t.columns, ...t.records, ...t.cells, ...t.amendments, ...t.automations].map((x) => (typeof x === 'string' ? x : x.id)))];
  for (const id of all) ids.set(id, `n-${id}`);
  const users = new Map([
    ['u1', 'n-u1'],
    ['u2', 'n-u2'],
  ]);
  const restored = restoredFrom(s, ids, users);
  const journal = ids;
  return { input: { source: s, restored, idMap: journal, userMap: users, planned: [], refused: [], attribution: ATTRIBUTION }, restored, src: s };
}

describe('compareWorkspace', () => {
  it('finds a faithful restore equal, modulo ids, users and the attribution line', () => {
    const { input, restored, src } = setUp();
    const r = compareWorkspace(input);
    expect(r.differing).toEqual([]);
    expect(r.ok).toBe(true);
    expect(r.entities.cell).toEqual({ compared: 3, equal: 3, differing: 0, notRestorable: 0 });
    expect(r.entities.subrecord.compared).toBe(1);
    expect(r.entities.member).toMatchObject({ compared: 2, equal: 2 });
    expect(r.entities.automation).toMatchObject({ compared: 2, equal: 2 });
    expect(r.entities.grant).toMatchObject({ compared: 1, equal: 1 });
    // the archived record could not be read back: excused, with why
    expect(r.notRestorable).toEqual([expect.objectContaining({ entity: 'record', id: 'r2', reason: expect.stringContaining('archived') })]);
  });

  it('gives the same verdict when the id map is looked up for what each part names (never held whole)', () => {
    const { input } = setUp();
    const whole = input.idMap as ReadonlyMap<string, string>;
    const asked: string[][] = [];
    const source: IdSource = {
      lookup(ids) {
        asked.push([...ids]);
        return new Map([...ids].filter((id) => whole.has(id)).map((id) => [id, whole.get(id)!]));
      },
    };
    expect(compareWorkspace({ ...input, idMap: source })).toEqual(compareWorkspace(input));
    // the workspace's own part, then the one module: each asked for the ids it names, JSON text included
    expect(asked.length).toBe(2);
    expect(asked[1]).toEqual(expect.arrayContaining(['r1', 'r2', 'k-rel', 'c1']));
    expect(stringsOf({ v: '["r2",{"x":"s1"}]', n: 3 })).toEqual(new Set(['["r2",{"x":"s1"}]', 'r2', 's1']));
  });

  it('fails on a cell restored with another value, naming record and column', () => {
    const { input, restored, src } = setUp();
    const cell = restored.trees[0]!.cells.find((c) => c.id === 'n-v2')!;
    cell.value = 'goodbye';
    const r = compareWorkspace(input);
    expect(r.ok).toBe(false);
    expect(r.differing).toEqual([expect.objectContaining({ entity: 'cell', id: 'v2', label: 'First · Notes', module: 'Board', fields: [{ field: 'value', before: 'hello', after: 'goodbye' }] })]);
    expect(r.entities.cell).toEqual({ compared: 3, equal: 2, differing: 1, notRestorable: 0 });
  });

  it('fails on a write the service refused, with its status and value; excuses what the plan said it cannot restore', () => {
    const { input, restored, src } = setUp();
    restored.trees[0]!.cells = restored.trees[0]!.cells.filter((c) => c.id !== 'n-v2');
    input.refused = [{ entity: 'cell', id: 'v2', label: 'First · Notes', reason: 'the service refused it: value must be a number', status: 400, value: 'hello' }];
    input.planned = [{ entity: 'subrecord', id: 's1', label: 'Sub', reason: 'its position was never seen' }];
    const r = compareWorkspace(input);
    expect(r.ok).toBe(false);
    expect(r.differing).toEqual([expect.objectContaining({ entity: 'cell', id: 'v2', reason: expect.stringMatching(/refused.*HTTP 400.*"hello"/) })]);
    expect(r.notRestorable).toContainEqual(expect.objectContaining({ entity: 'subrecord', id: 's1', reason: 'its position was never seen' }));
    expect(r.entities.subrecord).toMatchObject({ notRestorable: 1, differing: 0 });
  });

  it('fails on a missing member or a changed role; the restoring owner left over is excused', () => {
    const { input, restored, src } = setUp();
    restored.members = [member('n-u1', 'admin'), member('n-op', 'owner')];
    const r = compareWorkspace(input);
    expect(r.differing.map((d) => `${d.entity} ${d.label} ${d.reason}`)).toEqual(['member U1 differs: role', 'member U2 missing from the restored workspace']);
    expect(r.notRestorable).toContainEqual(expect.objectContaining({ entity: 'member', id: 'n-op', reason: expect.stringContaining('restoring user') }));
  });

  it('fails on a missing module, an extra one, a changed automation and a changed workspace field', () => {
    const { input, restored, src } = setUp();
    restored.trees[0]!.module = { ...restored.trees[0]!.module, id: 'elsewhere', name: 'Other' };
    restored.workspaceAutomations[0] = { ...restored.workspaceAutomations[0]!, isActive: false };
    restored.workspace = { ...restored.workspace, description: 'changed' };
    const r = compareWorkspace(input);
    expect(r.differing.map((d) => `${d.entity} ${d.label}: ${d.reason}`).sort()).toEqual([
      'automation Weekly: differs: isActive',
      'module Board: missing from the restored workspace',
      'module Other: in the restored workspace but not in the snapshot',
      'workspace Ops: differs: description',
    ]);
  });

  it('fails the whole workspace when nothing was restored', () => {
    const { input, restored, src } = setUp();
    const r = compareWorkspace({ ...input, restored: null });
    expect(r).toMatchObject({ ok: false, differing: [{ entity: 'workspace', id: 'ws', reason: 'not restored' }] });
  });

  it('strips only the line this restore added: an amendment restored before keeps its earlier line', () => {
    const { input, restored, src } = setUp();
    const earlier = 'first words\n\nRestored by wbsync — originally by Ada at 2026-01-01.';
    src.trees[0]!.amendments.find((a) => a.id === 'a3')!.message = earlier;
    restored.trees[0]!.amendments.find((a) => a.id === 'n-a3')!.message = `${earlier}\n\nRestored by wbsync — originally by ADMIN at 2026-01-03.`;
    expect(compareWorkspace(input).differing).toEqual([]);
    // both lines gone would be a difference: the snapshot holds the earlier one
    restored.trees[0]!.amendments.find((a) => a.id === 'n-a3')!.message = 'first words';
    expect(compareWorkspace(input).differing).toEqual([expect.objectContaining({ entity: 'amendment', id: 'a3', reason: 'differs: message' })]);
  });

  it('ignores the name when the restore had to give it another (a staging service)', () => {
    const { input, restored, src } = setUp();
    restored.workspace = { ...restored.workspace, name: 'Ops (wbsync drill 20261126)' };
    expect(compareWorkspace(input).differing).toHaveLength(1);
    expect(compareWorkspace({ ...input, renamed: true }).ok).toBe(true);
  });
});

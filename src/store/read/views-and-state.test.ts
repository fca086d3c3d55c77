import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BoardRecord } from '../../domain/entities.js';
import {
  makeActivity, makeAmendment, makeAutomation, makeCell, makeCollection, makeColumn, makeMember, makeModule,
  makeModuleAccess, makeRecord, makeTempDir, makeWorkspace,
} from '../fixtures.js';
import { openStore } from '../open.js';
import type { Store } from '../port.js';

const CONTRACT: Record<string, string[]> = {
  snapshots: ['id', 'kind', 'status', 'started_at', 'finished_at'],
  workspaces: ['id', 'name', 'slug', 'description', 'icon', 'banner', 'created_at', 'updated_at', 'raw'],
  members: ['workspace_id', 'user_id', 'membership_id', 'role', 'status', 'first_name', 'last_name', 'email', 'joined_at', 'raw'],
  modules: ['id', 'workspace_id', 'name', 'description', 'icon', 'color', 'visibility', 'tags', 'created_at', 'updated_at', 'raw'],
  collections: ['id', 'module_id', 'name', 'color', 'position', 'is_collapsed', 'raw'],
  columns: ['id', 'module_id', 'scope', 'name', 'type', 'position', 'width', 'is_required', 'is_hidden', 'status_options', 'settings', 'raw'],
  records: ['id', 'workspace_id', 'module_id', 'collection_id', 'parent_record_id', 'name', 'position', 'is_completed', 'is_archived', 'sub_record_count', 'amendment_count', 'created_at', 'updated_at', 'raw'],
  cells: ['id', 'record_id', 'column_id', 'value', 'created_at', 'updated_at', 'raw'],
  amendments: ['id', 'workspace_id', 'module_id', 'record_id', 'parent_id', 'user_id', 'message', 'edited', 'is_deleted', 'created_at', 'raw'],
  automations: ['id', 'workspace_id', 'module_id', 'scope', 'name', 'trigger', 'conditions', 'match', 'actions', 'is_active', 'run_count', 'last_run_at', 'last_error', 'created_at', 'raw'],
  activity: ['id', 'workspace_id', 'action', 'message', 'target_name', 'module_id', 'collection_id', 'record_id', 'column_id', 'user_id', 'automation_id', 'before', 'after', 'created_at', 'raw'],
};

const HOSTILE = [
  `it's "quoted" \\ back\\slash`,
  `'); DROP TABLE record_versions; --`,
  '🦄👩‍👩‍👧 emoji',
  'עברית RTL \u202e override',
  'x'.repeat(10_000),
  '{"looks":"like json","n":[1,2]}',
  'tab\tnew\nline\r\n',
];

describe('views and state as of a snapshot', () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let store: Store;
  beforeEach(() => {
    tmp = makeTempDir();
    store = openStore(path.join(tmp.dir, 'v.db'));
  });
  afterEach(() => {
    store.close();
    tmp.cleanup();
  });
  const names = () => store.db.prepare('SELECT name FROM records ORDER BY id').pluck().all();

  it('exposes the contract views with exactly their columns', () => {
    for (const [view, cols] of Object.entries(CONTRACT)) {
      const got = (store.db.prepare(`PRAGMA table_info("${view}")`).all() as Array<{ name: string }>).map((c) => c.name);
      expect(got, view).toEqual(cols);
    }
    const access = (store.db.prepare(`PRAGMA table_info(module_access)`).all() as Array<{ name: string }>).map((c) => c.name);
    expect(access).toEqual(['workspace_id', 'user_id', 'module_id', 'granted', 'open_to_role', 'can_access', 'is_creator', 'raw']);
  });

  it('shows the latest complete snapshot only: running writes invisible, a failed one hides nothing', async () => {
    const s1 = store.beginSnapshot('full');
    await store.apply(s1, { upserts: { records: [makeRecord('r1', 'm1', 'c1'), makeRecord('r2', 'm1', 'c1')] } });
    expect(names()).toEqual([]); // nothing complete yet
    store.finishSnapshot(s1, 'complete', {});
    expect(names()).toEqual(['Record r1', 'Record r2']);

    const s2 = store.beginSnapshot('incremental');
    await store.apply(s2, {
      upserts: { records: [makeRecord('r1', 'm1', 'c1', { name: 'changed' }), makeRecord('r3', 'm1', 'c1')] },
      gone: [{ kind: 'record', id: 'r2' }],
    });
    expect(names()).toEqual(['Record r1', 'Record r2']); // running: invisible
    store.finishSnapshot(s2, 'failed', {});
    expect(names()).toEqual(['Record r1', 'Record r2']); // failed: still snapshot 1

    const s3 = store.beginSnapshot('incremental');
    store.finishSnapshot(s3, 'complete', {});
    // what the failed pass committed is what the service looked like: it counts from then on
    expect(names()).toEqual(['changed', 'Record r3']);
    expect(store.db.prepare('SELECT id, status FROM snapshots ORDER BY id').all()).toEqual([
      { id: s1, status: 'complete' }, { id: s2, status: 'failed' }, { id: s3, status: 'complete' },
    ].map((r) => expect.objectContaining(r)));
  });

  it('renders booleans as 0/1 and JSON fields as JSON text', async () => {
    const s1 = store.beginSnapshot('full');
    await store.apply(s1, {
      upserts: {
        modules: [makeModule('m1', 'w1')],
        columns: [makeColumn('k1', 'm1', { isRequired: true, statusOptions: [{ label: 'Done', color: 'green' }] })],
        records: [makeRecord('r1', 'm1', 'c1', { isArchived: true })],
      },
    });
    store.finishSnapshot(s1, 'complete', {});
    expect(store.db.prepare('SELECT is_archived, is_completed FROM records').get()).toEqual({ is_archived: 1, is_completed: 0 });
    expect(store.db.prepare('SELECT tags FROM modules').pluck().get()).toBe('[{"label":"a","color":"red"}]');
    const col = store.db.prepare('SELECT is_required, status_options, settings FROM columns').get();
    expect(col).toEqual({ is_required: 1, status_options: '[{"label":"Done","color":"green"}]', settings: null });
  });

  it('round-trips every entity exactly, hostile strings and raw included', async () => {
    const raw = JSON.parse(`{"__proto__":{"polluted":true},"constructor":"x","nested":{"__proto__":[1]},"s":${JSON.stringify(HOSTILE.join('|'))}}`);
    const records: BoardRecord[] = HOSTILE.map((name, i) =>
      makeRecord(`r${i}`, 'm1', 'c1', { name, position: i + 0.5, raw: { ...raw, i }, updatedAt: null }),
    );
    records[0]!.raw = raw;
    const upserts = {
      workspaces: [makeWorkspace('w1', { description: HOSTILE[1]!, raw })],
      members: [makeMember('w1', 'u1', { firstName: HOSTILE[2]!, raw })],
      modules: [makeModule('m1', 'w1', { name: HOSTILE[3]!, tags: [{ label: HOSTILE[5]!, color: '' }], raw })],
      collections: [makeCollection('c1', 'm1', { isCollapsed: true, position: null, raw })],
      columns: [makeColumn('k1', 'm1', { settings: { '__proto__': 1, a: [null] } as never, statusOptions: [], raw })],
      records,
      cells: [makeCell('x1', 'r0', null, { value: HOSTILE[5]!, raw }), makeCell('x2', 'r1', 'k1', { value: null, raw: {} })],
      amendments: [makeAmendment('a1', 'r0', { message: HOSTILE[0]!, userId: null, isDeleted: true, raw })],
      automations: [makeAutomation('au1', 'w1', 'm1', { conditions: [{ a: HOSTILE[6] }], lastError: HOSTILE[4]!, raw })],
      activity: [makeActivity('ev1', 'w1', { before: 'null', after: HOSTILE[5]!, raw })],
      moduleAccess: [makeModuleAccess('w1', 'u1', 'm1', { openToRole: true, raw })],
    };
    const s1 = store.beginSnapshot('full');
    await store.apply(s1, { upserts });
    store.finishSnapshot(s1, 'complete', {});
    const st = store.stateAt()!;
    expect(st.snapshotId).toBe(s1);
    expect(st.workspaces()).toEqual(upserts.workspaces);
    expect(st.members('w1')).toEqual(upserts.members);
    expect(st.modules()).toEqual(upserts.modules);
    expect(st.module('m1')).toEqual(upserts.modules[0]);
    expect(st.collections('m1')).toEqual(upserts.collections);
    expect(st.columns('m1', 'record')).toEqual(upserts.columns);
    expect(st.records('m1')).toEqual(records);
    expect(st.record('r4')!.name).toHaveLength(10_000);
    expect(st.cells('m1')).toEqual(upserts.cells);
    expect(st.cellsOfRecord('r0')).toEqual([upserts.cells[0]]);
    expect(st.amendmentsOfRecord('r0')).toEqual(upserts.amendments);
    expect(st.amendments('m1')).toEqual(upserts.amendments);
    expect(st.moduleAutomations('m1')).toEqual(upserts.automations);
    expect(st.workspaceAutomations('w1')).toEqual([]);
    expect(st.activity('w1')).toEqual(upserts.activity);
    expect(st.moduleAccess('w1')).toEqual(upserts.moduleAccess);
    // raw byte for byte, own __proto__ keys kept and no prototype pollution
    const back = st.record('r0')!.raw;
    expect(JSON.stringify(back)).toBe(JSON.stringify(raw));
    expect(Object.prototype.hasOwnProperty.call(back, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(store.db.prepare(`SELECT raw FROM records WHERE id = 'r0'`).pluck().get()).toBe(JSON.stringify(raw));
    // and the same content again hashes the same: nothing new
    const s2 = store.beginSnapshot('full');
    expect((await store.apply(s2, { upserts })).written).toEqual({});
  });

  it('stateAt(N) rebuilds each snapshot; snapshotsHolding lists complete ones', async () => {
    const s1 = store.beginSnapshot('full');
    await store.apply(s1, { upserts: { modules: [makeModule('m1', 'w1')], records: [makeRecord('r1', 'm1', null)] } });
    store.finishSnapshot(s1, 'complete', {});
    const s2 = store.beginSnapshot('full');
    await store.apply(s2, { upserts: { records: [makeRecord('r1', 'm1', null, { name: 'two' })] } });
    store.finishSnapshot(s2, 'complete', {});
    const s3 = store.beginSnapshot('full');
    await store.apply(s3, { gone: [{ kind: 'module', id: 'm1', cascade: true }] });
    store.finishSnapshot(s3, 'complete', {});
    const s4 = store.beginSnapshot('full'); // running: not listed by snapshotsHolding

    expect(store.stateAt(s1)!.record('r1')!.name).toBe('Record r1');
    expect(store.stateAt(s2)!.record('r1')!.name).toBe('two');
    expect(store.stateAt(s3)!.record('r1')).toBeNull();
    expect(store.stateAt(s3)!.module('m1')).toBeNull();
    expect(store.stateAt()!.snapshotId).toBe(s3);
    expect(store.stateAt(999)).toBeNull();
    expect(store.snapshotsHolding('module', 'm1')).toEqual([s1, s2]);
    expect(store.snapshotsHolding('record', 'r1')).toEqual([s1, s2]);
    expect(s4).toBeGreaterThan(s3);
  });

  it('indexes record names and amendment messages in the FTS5 table `search`', async () => {
    const s1 = store.beginSnapshot('full');
    await store.apply(s1, {
      upserts: {
        records: [makeRecord('r1', 'm1', 'c1', { name: 'Quarterly invoice review' }), makeRecord('r2', 'm1', 'c1', { name: 'Café opening' })],
        amendments: [makeAmendment('a1', 'r2', { message: 'Invoice attached', moduleId: 'm1' })],
      },
    });
    const hits = (q: string) =>
      store.db.prepare(`SELECT kind, entity_id FROM search WHERE search MATCH ? ORDER BY kind, entity_id`).all(q);
    expect(hits('invoice')).toEqual([{ kind: 'amendment', entity_id: 'a1' }, { kind: 'record', entity_id: 'r1' }]);
    expect(hits('cafe')).toEqual([{ kind: 'record', entity_id: 'r2' }]);
    await store.apply(s1, { upserts: { records: [makeRecord('r1', 'm1', 'c1', { name: 'Renamed' })] } });
    expect(hits('quarterly')).toEqual([]);
    expect(hits('renamed')).toEqual([{ kind: 'record', entity_id: 'r1' }]);
    store.finishSnapshot(s1, 'complete', {});
    const s2 = store.beginSnapshot('full');
    await store.apply(s2, { gone: [{ kind: 'record', id: 'r2', cascade: true }] });
    expect(hits('invoice OR cafe')).toEqual([]);
  });
});

// Both body shapes (spec: bare or list-wrapped; observed: `{message, thing}` wrapped, extra
// fields) must come out as the same entities, with `raw` the object as received.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient } from './http-client.js';
import type { ServiceClient } from './port.js';
import { sendJson, startFakeServer, type FakeServer, type SeenRequest } from './testing/fake-server.js';

const T = '2026-01-15T09:00:00.000Z';
let server: FakeServer;
let client: ServiceClient;
let next: unknown = {};
let lastRequest: SeenRequest | undefined;

beforeAll(async () => {
  server = await startFakeServer((req, res) => {
    lastRequest = req;
    sendJson(res, 200, next);
  });
  client = createHttpClient({ baseUrl: server.baseUrl, apiKey: 'k', retries: 0 });
});
afterAll(async () => {
  await client.close();
  await server.close();
});

/** Answers `body`, runs `fn`, returns its result. */
async function answer<T>(body: unknown, fn: (c: ServiceClient) => Promise<T>): Promise<T> {
  next = body;
  return fn(client);
}

const workspace = { _id: 'w1', name: 'Acme', slug: 'acme', description: 'd', icon: 'rocket', createdAt: T, updatedAt: T, totalModules: 2 };
const moduleBody = { _id: 'm1', name: 'Board', workspace: 'w1', description: '', icon: '📋', color: '#3B82F6', visibility: 'workspace', tags: [{ label: 'x', color: '#fff' }], createdAt: T, updatedAt: T, __v: 0 };
const collection = { _id: 'c1', name: 'Todo', color: '#000', position: 0, isCollapsed: false, module: 'm1' };
const column = { _id: 'col1', name: 'Status', type: 'status', position: 1, width: 180, isRequired: false, isHidden: false, statusOptions: [{ label: 'Done', color: '#22C55E' }], module: 'm1' };
const record = { _id: 'r1', name: 'Row', position: 2, collectionName: 'c1', parentRecord: null, subRecordCount: 1, amendmentCount: 0, module: 'm1', workspace: 'w1', isCompleted: false, isArchived: false, createdAt: T, updatedAt: T, graphData: { a: 1 } };
const cell = { _id: 'v1', record: 'r1', column: { _id: 'col1', name: 'Status', type: 'status' }, value: 'Done', createdAt: T, updatedAt: T };
const amendment = { _id: 'a1', record: 'r1', module: 'm1', workspace: 'w1', user: { _id: 'u1', firstName: 'A' }, message: 'hi', parentComment: null, edited: false, isDeleted: false, createdAt: T };
const automation = { _id: 'au1', workspace: 'w1', module: 'm1', name: 'R', trigger: { type: 'record_created' }, conditions: [], match: 'all', actions: [{ type: 'archive_record' }], isActive: true, runCount: 3, lastRunAt: T, lastError: '', createdAt: T };

describe('normalisers accept both body shapes', () => {
  it('workspaces: spec membership rows, observed bare objects, bare array', async () => {
    const expected = { id: 'w1', name: 'Acme', slug: 'acme', description: 'd', icon: 'rocket', banner: null, createdAt: T, updatedAt: T, raw: workspace };
    for (const body of [{ workspaces: [{ workspace, role: 'owner' }] }, { workspaces: [workspace] }, [workspace]]) {
      expect(await answer(body, (c) => c.listWorkspaces())).toEqual([expected]);
    }
    expect(await answer({ workspace }, (c) => c.getWorkspace('w1'))).toEqual(expected);
    expect(await answer(workspace, (c) => c.getWorkspace('w1'))).toEqual(expected);
  });

  it('members: populated user or bare user id', async () => {
    const m = { _id: 'mem1', role: 'owner', status: 'active', joinedAt: T, user: { _id: 'u1', firstName: 'Ann', lastName: 'Lee', email: 'a@x', presence: 'online' } };
    const [got] = await answer({ members: [m] }, (c) => c.listMembers('w1'));
    expect(got).toEqual({ workspaceId: 'w1', userId: 'u1', membershipId: 'mem1', role: 'owner', status: 'active', firstName: 'Ann', lastName: 'Lee', email: 'a@x', joinedAt: T, raw: m });
    const [bare] = await answer({ members: [{ role: 'member', user: 'u2' }] }, (c) => c.listMembers('w1'));
    expect(bare).toMatchObject({ userId: 'u2', membershipId: null, firstName: null });
  });

  it('members: a membership whose user account was deleted (user: null) is skipped, not fatal', async () => {
    const list = await answer({ members: [{ _id: 'gone', role: 'member', user: null }, { role: 'member', user: 'u2' }] }, (c) => c.listMembers('w1'));
    expect(list.map((m) => m.userId)).toEqual(['u2']);
  });

  it('modules: list, wrapped create/update, bare update; extra fields kept in raw', async () => {
    const expected = { id: 'm1', workspaceId: 'w1', name: 'Board', description: '', icon: '📋', color: '#3B82F6', visibility: 'workspace', tags: [{ label: 'x', color: '#fff' }], createdAt: T, updatedAt: T, raw: moduleBody };
    expect(await answer({ modules: [moduleBody] }, (c) => c.listModules('w1'))).toEqual([expected]);
    expect(await answer({ message: 'Board created', module: moduleBody }, (c) => c.createModule('w1', { name: 'Board' }))).toEqual(expected);
    expect(await answer(moduleBody, (c) => c.updateModule('m1', { name: 'Board' }))).toEqual(expected);
    const noWs = { ...moduleBody, workspace: undefined };
    expect((await answer({ modules: [noWs] }, (c) => c.listModules('w9')))[0].workspaceId).toBe('w9');
  });

  it('collections: spec bare create, observed wrapped create', async () => {
    const expected = { id: 'c1', moduleId: 'm1', name: 'Todo', color: '#000', position: 0, isCollapsed: false, tieRank: null, raw: collection };
    expect(await answer({ collections: [collection] }, (c) => c.listCollections('m1'))).toEqual([expected]);
    expect(await answer(collection, (c) => c.createCollection('m1', { name: 'Todo' }))).toEqual(expected);
    expect(await answer({ message: 'Collection created', collection }, (c) => c.createCollection('m1', { name: 'Todo' }))).toEqual(expected);
    expect(await answer({ message: 'ok', collection }, (c) => c.updateCollection('c1', { isCollapsed: false }))).toEqual(expected);
  });

  it('columns: scope from the call, `scope` query only for sub-record columns', async () => {
    const cols = await answer({ columns: [column] }, (c) => c.listColumns('m1', 'subrecord'));
    expect(cols[0]).toEqual({ id: 'col1', moduleId: 'm1', scope: 'subrecord', name: 'Status', type: 'status', position: 1, width: 180, isRequired: false, isHidden: false, statusOptions: [{ label: 'Done', color: '#22C55E' }], settings: null, tieRank: null, raw: column });
    expect(lastRequest?.url).toBe('/api/columns/m1?scope=subrecord');
    expect((await answer({ columns: [column] }, (c) => c.listColumns('m1', 'record')))[0].scope).toBe('record');
    expect(lastRequest?.url).toBe('/api/columns/m1');
    const created = await answer({ message: 'Column created', column: { ...column, settings: { targetModule: 'm2' } } }, (c) =>
      c.createColumn('m1', { name: 'Status', type: 'status', scope: 'subrecord' }),
    );
    expect(created).toMatchObject({ scope: 'subrecord', settings: { targetModule: 'm2' } });
    expect(JSON.parse(lastRequest?.body ?? '{}')).toEqual({ name: 'Status', type: 'status', scope: 'subrecord' });
    expect(await answer(column, (c) => c.updateColumn('col1', { width: 200 }))).toMatchObject({ id: 'col1', scope: 'record' });
  });

  it('records: collectionName -> collectionId, parentRecord -> parentRecordId, wrapped or bare', async () => {
    const expected = { id: 'r1', workspaceId: 'w1', moduleId: 'm1', collectionId: 'c1', parentRecordId: null, name: 'Row', position: 2, isCompleted: false, isArchived: false, subRecordCount: 1, amendmentCount: 0, createdAt: T, updatedAt: T, raw: record };
    expect(await answer({ records: [record] }, (c) => c.listRecords('c1'))).toEqual([expected]);
    expect(await answer({ record }, (c) => c.createRecord('c1', { name: 'Row' }))).toEqual(expected);
    expect(await answer({ message: 'Record updated', record }, (c) => c.updateRecord('r1', { name: 'Row' }))).toEqual(expected);
    const sub = { ...record, _id: 'r2', parentRecord: 'r1', collectionName: null };
    const [got] = await answer({ records: [sub] }, (c) => c.listSubRecords('r1'));
    expect(got).toMatchObject({ id: 'r2', parentRecordId: 'r1', collectionId: null });
    expect(await answer({ message: 'Record created', record: sub }, (c) => c.createSubRecord('r1', { name: 'x' }))).toMatchObject({ parentRecordId: 'r1' });
    expect(lastRequest?.url).toBe('/api/records/r1/sub-records');
    expect(await answer({ message: 'deleted', archivedSubRecords: 2 }, (c) => c.deleteRecord('r1'))).toEqual({ archivedSubRecords: 2 });
  });

  it('cells: populated column, bare column id, deleted column (null), non-string values as JSON text', async () => {
    const cells = [
      cell,
      { ...cell, _id: 'v2', column: 'col2', value: ['u1', 'u2'] },
      { ...cell, _id: 'v3', column: null, value: { startDate: 'a', endDate: 'b' } },
      { ...cell, _id: 'v4', value: 3.5 },
    ];
    const got = await answer({ values: cells }, (c) => c.listValues('r1'));
    expect(got.map((x) => [x.columnId, x.value])).toEqual([
      ['col1', 'Done'],
      ['col2', '["u1","u2"]'],
      [null, '{"startDate":"a","endDate":"b"}'],
      ['col1', '3.5'],
    ]);
    expect(got[0]).toEqual({ id: 'v1', recordId: 'r1', columnId: 'col1', value: 'Done', createdAt: T, updatedAt: T, raw: cell });
    const input = { record: 'r1', column: 'col1', collectionName: 'c1', module: 'm1', workspace: 'w1', value: 'Done' };
    expect(await answer(cell, (c) => c.createValue(input))).toMatchObject({ id: 'v1', value: 'Done' });
    expect(await answer({ message: 'Value updated', recordValue: cell }, (c) => c.createValue(input))).toMatchObject({ id: 'v1' });
    expect(await answer({ message: 'ok', recordValue: cell }, (c) => c.updateValue('v1', { value: 'Done' }))).toMatchObject({ id: 'v1' });
  });

  it('references: wrapped or bare map', async () => {
    const refs = { r1: { col1: { items: [{ recordId: 'r9', name: 'X', value: '1' }], display: 'X' } } };
    expect(await answer({ references: refs }, (c) => c.getReferences('m1'))).toEqual(refs);
    expect(await answer(refs, (c) => c.getReferences('m1'))).toEqual(refs);
  });

  it('amendments: user object -> userId; tombstone user null -> userId null', async () => {
    const tomb = { _id: 'a0', record: 'r1', user: null, message: '', isDeleted: true, parentComment: null, createdAt: T };
    const reply = { ...amendment, _id: 'a2', parentComment: 'a0' };
    const got = await answer({ amendments: [tomb, reply] }, (c) => c.listAmendments('r1'));
    expect(got[0]).toEqual({ id: 'a0', workspaceId: null, moduleId: null, recordId: 'r1', parentId: null, userId: null, message: '', edited: false, isDeleted: true, createdAt: T, raw: tomb });
    expect(got[1]).toMatchObject({ userId: 'u1', parentId: 'a0', workspaceId: 'w1', moduleId: 'm1' });
    expect(await answer({ amendment }, (c) => c.createAmendment('r1', { message: 'hi' }))).toMatchObject({ id: 'a1' });
    expect(await answer({ message: 'ok', amendment }, (c) => c.updateAmendment('a1', { message: 'hi' }))).toMatchObject({ id: 'a1' });
  });

  it('automations: module scope, workspace scope from module null, lastError "" -> null', async () => {
    const ws = { ...automation, _id: 'au2', module: null, lastError: 'column gone', trigger: { type: 'column_changed', columnName: 'Status' } };
    const [mod] = await answer({ automations: [automation] }, (c) => c.listModuleAutomations('m1'));
    expect(mod).toEqual({ id: 'au1', workspaceId: 'w1', moduleId: 'm1', scope: 'module', name: 'R', trigger: { type: 'record_created' }, conditions: [], match: 'all', actions: [{ type: 'archive_record' }], isActive: true, runCount: 3, lastRunAt: T, lastError: null, createdAt: T, raw: automation });
    const [wsAuto] = await answer({ automations: [ws] }, (c) => c.listWorkspaceAutomations('w1'));
    expect(wsAuto).toMatchObject({ scope: 'workspace', moduleId: null, lastError: 'column gone' });
    const input = { name: 'R', trigger: { type: 'record_created' }, conditions: [], match: 'all', actions: [] };
    expect(await answer({ message: 'Automation created', automation }, (c) => c.createModuleAutomation('m1', input))).toMatchObject({ id: 'au1' });
    expect(await answer({ message: 'ok', automation: ws }, (c) => c.createWorkspaceAutomation('w1', input))).toMatchObject({ scope: 'workspace' });
    expect(lastRequest?.url).toBe('/api/automations/workspace/w1');
    expect(await answer({ message: 'ok', automation }, (c) => c.updateAutomation('au1', { isActive: false }))).toMatchObject({ id: 'au1' });
  });

  it('activity: populated refs -> ids, before/after -> JSON text or null, paging fields, query string', async () => {
    const row = {
      _id: 'act1', action: 'cell_updated', message: 'm', targetName: 'Row', before: 'Working', after: null,
      user: { _id: 'u1', firstName: 'A' }, module: { _id: 'm1', name: 'Board' }, collectionName: { _id: 'c1', name: 'Todo' },
      record: { _id: 'r1', name: 'Row' }, column: { _id: 'col1', name: 'Status' }, automation: null, triggeredBy: null,
      canRevert: true, createdAt: T,
    };
    const botRow = { ...row, _id: 'act2', before: undefined, after: { a: [1] }, automation: { _id: 'au1', name: 'R' }, workspace: 'w1', metadata: {} };
    const page = await answer({ activities: [row, botRow], hasMore: true, nextCursor: T, retentionDays: 90 }, (c) =>
      c.listActivity('w1', { limit: 2, source: 'automation', before: T }),
    );
    expect(page).toMatchObject({ hasMore: true, nextCursor: T, retentionDays: 90 });
    expect(page.activities[0]).toEqual({ id: 'act1', workspaceId: 'w1', action: 'cell_updated', message: 'm', targetName: 'Row', moduleId: 'm1', collectionId: 'c1', recordId: 'r1', columnId: 'col1', userId: 'u1', automationId: null, before: '"Working"', after: null, createdAt: T, raw: row });
    expect(page.activities[1]).toMatchObject({ before: null, after: '{"a":[1]}', automationId: 'au1' });
    expect(lastRequest?.url).toBe(`/api/activity/w1?limit=2&before=${encodeURIComponent(T)}&source=automation`);
    const last = await answer({ activities: [], hasMore: false, nextCursor: null }, (c) => c.listActivity('w1', {}));
    expect(last).toEqual({ activities: [], hasMore: false, nextCursor: null, retentionDays: null });
  });

  it('module access: rows with the call\'s workspace and user; put answers moduleIds', async () => {
    const row = { _id: 'm1', name: 'Board', visibility: 'private', granted: true, openToRole: false, canAccess: true, isCreator: false };
    expect(await answer({ role: 'member', modules: [row] }, (c) => c.getModuleAccess('w1', 'u2'))).toEqual([
      { workspaceId: 'w1', userId: 'u2', moduleId: 'm1', granted: true, openToRole: false, canAccess: true, isCreator: false, raw: row },
    ]);
    expect(await answer({ message: 'ok', moduleIds: ['m1'] }, (c) => c.putModuleAccess('w1', 'u2', ['m1', 'zz']))).toEqual(['m1']);
    expect(lastRequest?.method).toBe('PUT');
    expect(JSON.parse(lastRequest?.body ?? '{}')).toEqual({ moduleIds: ['m1', 'zz'] });
  });

  it('deletes accept a {message} body and use DELETE on the right path', async () => {
    await answer({ message: 'Column deleted' }, (c) => c.deleteColumn('col1'));
    expect(`${lastRequest?.method} ${lastRequest?.url}`).toBe('DELETE /api/columns/col1');
    await answer({ message: 'gone' }, (c) => c.deleteValue('v1'));
    expect(lastRequest?.url).toBe('/api/record-values/v1');
    await answer('', (c) => c.deleteAmendment('a1'));
    expect(lastRequest?.url).toBe('/api/amendments/a1');
  });

  it('ids are URL-encoded into the path', async () => {
    await answer({ records: [] }, (c) => c.listRecords('a/../b?x'));
    expect(lastRequest?.url).toBe('/api/records/a%2F..%2Fb%3Fx');
  });
});

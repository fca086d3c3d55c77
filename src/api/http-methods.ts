// The ServiceClient's methods over HTTP, built on the four verbs http-client.ts makes (each sends
// through the transport stack, decodes a 2xx and scrubs the key from any error).

import type { ColumnScope, Member } from '../domain/entities.js';
import type { HttpMethod } from './endpoint.js';
import { decodeItems, decodeMany, decodeObject, decodeOne } from './decode.js';
import * as n from './normalise.js';
import { isPlainObject, ownField, parseJsonBody, unwrapList, validate } from './parse-body.js';
import type { ActivityPage, ActivityQuery, CallOptions, ServiceClient } from './port.js';
import * as s from './schemas.js';
import type { ApiRequest, ApiResponse } from './transport.js';

export type Query = ApiRequest['query'];
type Params = Record<string, string>;

export type Call = <T>(
  method: HttpMethod,
  template: string,
  params: Params,
  decode: (res: ApiResponse) => T,
  extra?: { body?: unknown; query?: Query; opts?: CallOptions },
) => Promise<T>;

export interface Verbs {
  call: Call;
  get<T>(t: string, p: Params, d: (r: ApiResponse) => T, o?: CallOptions, query?: Query): Promise<T>;
  post<T>(t: string, p: Params, body: unknown, d: (r: ApiResponse) => T, o?: CallOptions): Promise<T>;
  put<T>(t: string, p: Params, body: unknown, d: (r: ApiResponse) => T, o?: CallOptions): Promise<T>;
  del(t: string, p: Params, o?: CallOptions): Promise<void>;
}

export function verbsOf(call: Call): Verbs {
  return {
    call,
    get: (t, p, d, o, query) => call('GET', t, p, d, { opts: o, query }),
    post: (t, p, body, d, o) => call('POST', t, p, d, { body, opts: o }),
    put: (t, p, body, d, o) => call('PUT', t, p, d, { body, opts: o }),
    del: (t, p, o) =>
      // A delete's answer carries nothing we keep; an empty 2xx body (a 204 behind a proxy) is fine.
      call('DELETE', t, p, (r) => void (r.text.trim() === '' ? undefined : decodeObject(r, s.AnyObjectSchema)), { opts: o }),
  };
}

const moduleOf = (ctx: n.NormaliseContext) => (res: ApiResponse) =>
  decodeOne(res, ['module'], s.ModuleSchema, (b, raw) => n.toModule(b, raw, ctx));
const collectionOf = (ctx: n.NormaliseContext) => (res: ApiResponse) =>
  decodeOne(res, ['collection'], s.CollectionSchema, (b, raw) => n.toCollection(b, raw, ctx));
const columnOf = (ctx: n.NormaliseContext) => (res: ApiResponse) =>
  decodeOne(res, ['column'], s.ColumnSchema, (b, raw) => n.toColumn(b, raw, ctx));
const recordOf = (ctx: n.NormaliseContext) => (res: ApiResponse) =>
  decodeOne(res, ['record'], s.RecordSchema, (b, raw) => n.toRecord(b, raw, ctx));
const cellOf = (ctx: n.NormaliseContext) => (res: ApiResponse) =>
  decodeOne(res, ['recordValue', 'value'], s.CellSchema, (b, raw) => n.toCell(b, raw, ctx));
const amendmentOf = (ctx: n.NormaliseContext) => (res: ApiResponse) =>
  decodeOne(res, ['amendment'], s.AmendmentSchema, (b, raw) => n.toAmendment(b, raw, ctx));
const automationOf = (ctx: n.NormaliseContext) => (res: ApiResponse) =>
  decodeOne(res, ['automation'], s.AutomationSchema, (b, raw) => n.toAutomation(b, raw, ctx));

/** The reads: lists and gets, each decoded and normalised. */
export function readMethods({ get }: Verbs) {
  return {
    listWorkspaces: (o) =>
      get('/workspaces', {}, (r) =>
        decodeMany(r, 'workspaces', s.WorkspaceSchema, n.toWorkspace, (item) =>
          // Spec: each item is the membership row `{workspace: {...}}`.
          isPlainObject(item) && isPlainObject(ownField(item, 'workspace')) && !Object.hasOwn(item, 'name') ? 'workspace' : undefined,
        ), o),
    getWorkspace: (workspaceId, o) =>
      get('/workspaces/{id}', { id: workspaceId }, (r) => decodeOne(r, ['workspace'], s.WorkspaceSchema, n.toWorkspace), o),
    listMembers: (workspaceId, o) =>
      get('/workspace-members/{workspaceId}', { workspaceId }, (r) =>
        decodeMany(r, 'members', s.MemberSchema, (b, raw) => n.toMember(b, raw, { workspaceId })).filter((m): m is Member => m !== null), o),
    listModules: (workspaceId, o) =>
      get('/modules/{workspaceId}', { workspaceId }, (r) =>
        decodeMany(r, 'modules', s.ModuleSchema, (b, raw) => n.toModule(b, raw, { workspaceId })), o),
    listCollections: (moduleId, o) =>
      get('/collections/{moduleId}', { moduleId }, (r) =>
        decodeMany(r, 'collections', s.CollectionSchema, (b, raw) => n.toCollection(b, raw, { moduleId })), o),
    listColumns: (moduleId, scope: ColumnScope, o) =>
      get('/columns/{moduleId}', { moduleId }, (r) =>
        decodeMany(r, 'columns', s.ColumnSchema, (b, raw) => n.toColumn(b, raw, { moduleId, scope })), o,
        // The board's own columns are asked for without `scope` (the spec knows only `subrecord`).
        scope === 'subrecord' ? { scope: 'subrecord' } : undefined),
    listRecords: (collectionId, o) =>
      get('/records/{collectionId}', { collectionId }, (r) => decodeMany(r, 'records', s.RecordSchema, (b, raw) => n.toRecord(b, raw, {})), o),
    listSubRecords: (recordId, o) =>
      get('/records/{recordId}/sub-records', { recordId }, (r) => decodeMany(r, 'records', s.RecordSchema, (b, raw) => n.toRecord(b, raw, {})), o),
    listValues: (recordId, o) =>
      get('/record-values/{recordId}', { recordId }, (r) => decodeMany(r, 'values', s.CellSchema, (b, raw) => n.toCell(b, raw, { recordId })), o),
    getReferences: (moduleId, o) =>
      get('/record-values/references/{moduleId}', { moduleId }, (r) => {
        const body = parseJsonBody(r);
        const inner = isPlainObject(body) ? ownField(body, 'references') : undefined;
        // zod rebuilds records without `__proto__` keys, so the returned map is safe to walk.
        return isPlainObject(inner)
          ? validate(s.ReferencesSchema, { value: inner, path: ['references'] }, r)
          : validate(s.ReferencesSchema, { value: body, path: [] }, r);
      }, o),
    listAmendments: (recordId, o) =>
      get('/amendments/{recordId}', { recordId }, (r) =>
        decodeMany(r, 'amendments', s.AmendmentSchema, (b, raw) => n.toAmendment(b, raw, { recordId })), o),
    listModuleAutomations: (moduleId, o) =>
      get('/automations/{moduleId}', { moduleId }, (r) =>
        decodeMany(r, 'automations', s.AutomationSchema, (b, raw) => n.toAutomation(b, raw, { moduleId })), o),
    listWorkspaceAutomations: (workspaceId, o) =>
      get('/automations/workspace/{workspaceId}', { workspaceId }, (r) =>
        decodeMany(r, 'automations', s.AutomationSchema, (b, raw) => n.toAutomation(b, raw, { workspaceId })), o),
    getModuleAccess: (workspaceId, userId, o) =>
      get('/module-access/{workspaceId}/{userId}', { workspaceId, userId }, (r) =>
        decodeMany(r, 'modules', s.ModuleAccessSchema, (b, raw) => n.toModuleAccess(b, raw, { workspaceId, userId })), o),
    listActivity: (workspaceId, q: ActivityQuery, o) =>
      get('/activity/{workspaceId}', { workspaceId }, (r) => decodeActivityPage(r, workspaceId), o, {
        limit: q.limit,
        before: q.before,
        moduleId: q.moduleId,
        recordId: q.recordId,
        userId: q.userId,
        action: q.action,
        source: q.source,
      }),
  } satisfies Partial<ServiceClient>;
}

/** The writes: creates, updates and deletes, each answer decoded and normalised. */
export function writeMethods({ call, post, put, del }: Verbs) {
  return {
    createWorkspace: (body, o) => post('/workspaces', {}, body, (r) => decodeOne(r, ['workspace'], s.WorkspaceSchema, n.toWorkspace), o),
    updateWorkspace: (workspaceId, body, o) => put('/workspaces/{id}', { id: workspaceId }, body, (r) => decodeOne(r, ['workspace'], s.WorkspaceSchema, n.toWorkspace), o),
    addMember: (workspaceId, body, o) =>
      post('/workspace-members/{workspaceId}', { workspaceId }, body, (r) => decodeOne(r, ['member'], s.MemberSchema, (b, raw) => n.toMember(b, raw, { workspaceId })), o),
    setMemberRole: (workspaceId, userId, role, o) =>
      put('/workspace-members/{workspaceId}/{userId}', { workspaceId, userId }, { role }, (r) => decodeOne(r, ['member'], s.MemberSchema, (b, raw) => n.toMember(b, raw, { workspaceId })), o),
    createModule: (workspaceId, body, o) => post('/modules/{workspaceId}', { workspaceId }, body, moduleOf({ workspaceId }), o),
    updateModule: (moduleId, body, o) => put('/modules/{moduleId}', { moduleId }, body, moduleOf({}), o),
    deleteModule: (moduleId, o) => del('/modules/{moduleId}', { moduleId }, o),
    createCollection: (moduleId, body, o) => post('/collections/{moduleId}', { moduleId }, body, collectionOf({ moduleId }), o),
    updateCollection: (collectionId, body, o) => put('/collections/{collectionId}', { collectionId }, body, collectionOf({}), o),
    deleteCollection: (collectionId, o) => del('/collections/{collectionId}', { collectionId }, o),
    createColumn: (moduleId, body, o) => {
      const scope: ColumnScope = body.scope ?? 'record';
      // The service knows only `scope: 'subrecord'`; board columns are created without it.
      const sent = { name: body.name, type: body.type, settings: body.settings, scope: scope === 'subrecord' ? 'subrecord' : undefined };
      return post('/columns/{moduleId}', { moduleId }, sent, columnOf({ moduleId, scope }), o);
    },
    updateColumn: (columnId, body, o) => put('/columns/{columnId}', { columnId }, body, columnOf({}), o),
    deleteColumn: (columnId, o) => del('/columns/{columnId}', { columnId }, o),
    createRecord: (collectionId, body, o) => post('/records/{collectionId}', { collectionId }, body, recordOf({}), o),
    createSubRecord: (parentRecordId, body, o) =>
      post('/records/{recordId}/sub-records', { recordId: parentRecordId }, body, recordOf({}), o),
    updateRecord: (recordId, body, o) => put('/records/{recordId}', { recordId }, body, recordOf({}), o),
    deleteRecord: (recordId, o) =>
      call('DELETE', '/records/{recordId}', { recordId }, (r) => ({
        archivedSubRecords: decodeObject(r, s.DeleteRecordSchema).archivedSubRecords ?? 0,
      }), { opts: o }),
    createValue: (body, o) => post('/record-values', {}, body, cellOf({ recordId: body.record }), o),
    updateValue: (valueId, body, o) => put('/record-values/{recordValueId}', { recordValueId: valueId }, body, cellOf({}), o),
    deleteValue: (valueId, o) => del('/record-values/{recordValueId}', { recordValueId: valueId }, o),
    createAmendment: (recordId, body, o) => post('/amendments/{recordId}', { recordId }, body, amendmentOf({ recordId }), o),
    updateAmendment: (amendmentId, body, o) => put('/amendments/{amendmentId}', { amendmentId }, body, amendmentOf({}), o),
    deleteAmendment: (amendmentId, o) => del('/amendments/{amendmentId}', { amendmentId }, o),
    createModuleAutomation: (moduleId, body, o) =>
      post('/automations/{moduleId}', { moduleId }, body, automationOf({ moduleId }), o),
    createWorkspaceAutomation: (workspaceId, body, o) =>
      post('/automations/workspace/{workspaceId}', { workspaceId }, body, automationOf({ workspaceId }), o),
    updateAutomation: (automationId, body, o) => put('/automations/{automationId}', { automationId }, body, automationOf({}), o),
    deleteAutomation: (automationId, o) => del('/automations/{automationId}', { automationId }, o),
    putModuleAccess: (workspaceId, userId, moduleIds, o) =>
      put('/module-access/{workspaceId}/{userId}', { workspaceId, userId }, { moduleIds }, (r) =>
        decodeObject(r, s.ModuleIdsSchema).moduleIds ?? [...moduleIds], o),
  } satisfies Partial<ServiceClient>;
}

function decodeActivityPage(res: ApiResponse, workspaceId: string): ActivityPage {
  const body = parseJsonBody(res);
  const page = validate(s.ActivityPageSchema, { value: body, path: [] }, res);
  const activities = decodeItems(res, unwrapList(body, 'activities'), s.ActivitySchema, (b, raw) =>
    n.toActivity(b, raw, { workspaceId }),
  );
  return {
    activities,
    hasMore: page.hasMore ?? false,
    nextCursor: page.nextCursor ?? null,
    retentionDays: page.retentionDays ?? null,
  };
}

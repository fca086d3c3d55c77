// The ServiceClient over HTTP: transport (undici, key, timeout, size cap) <- queue (in-flight
// bound) <- retry (backoff, 401 triage), then decoding and normalising at the edge. Every error
// that leaves this file is a WbsyncError scrubbed of the key.

import type { Logger } from 'pino';
import type { ColumnScope, Member } from '../domain/entities.js';
import type { HttpMethod } from './endpoint.js';
import { decodeItems, decodeMany, decodeObject, decodeOne } from './decode.js';
import { readHealth } from './health.js';
import * as n from './normalise.js';
import { isPlainObject, ownField, parseJsonBody, unwrapList, validate } from './parse-body.js';
import type { ActivityPage, ActivityQuery, CallOptions, Health, ServiceClient } from './port.js';
import { scrubError } from './redact.js';
import { errorFromResponse } from './response-errors.js';
import { withGate, type RequestGate } from './gate.js';
import { withQueue } from './queue.js';
import { withRetry, type RetryInfo } from './retry.js';
import * as s from './schemas.js';
import { StatsRecorder, type RequestTiming } from './stats.js';
import { createUndiciTransport, type ApiRequest, type ApiResponse } from './transport.js';

export type { RetryInfo } from './retry.js';
export type { RequestTiming } from './stats.js';
export { describeEndpoint } from './endpoint.js';

export interface HttpClientOptions {
  /** Service root; requests go to `${baseUrl}/api/...`, health to `${baseUrl}/`. */
  baseUrl: string;
  apiKey: string;
  /** Requests in flight (default 8). */
  concurrency?: number;
  /** Whole-exchange deadline per request (default 30000). */
  timeoutMs?: number;
  /** Retries after the first attempt (default 5). */
  retries?: number;
  /** Full-jitter backoff: delay uniform in [0, min(max, base * 2^n)] (defaults 250 / 10000). */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Bodies larger than this are refused (default 64 MiB). */
  maxBodyBytes?: number;
  onRetry?: (info: RetryInfo) => void;
  /** Every finished exchange (retries included), with its route template and duration. */
  onRequest?: (timing: RequestTiming) => void;
  logger?: Logger;
  /** Injected for tests: the jitter source (default Math.random). */
  random?: () => number;
  /** A shared budget each request waits on before it goes out (fleet workers; gate.ts). */
  gate?: RequestGate;
}

export const HTTP_DEFAULTS = {
  concurrency: 8,
  timeoutMs: 30_000,
  retries: 5,
  backoffBaseMs: 250,
  backoffMaxMs: 10_000,
  maxBodyBytes: 64 * 1024 * 1024,
} as const;

type Query = ApiRequest['query'];

export function createHttpClient(opts: HttpClientOptions): ServiceClient {
  const key = opts.apiKey;
  const stats = new StatsRecorder(opts.onRequest);
  const concurrency = opts.concurrency ?? HTTP_DEFAULTS.concurrency;
  const transport = createUndiciTransport({
    baseUrl: opts.baseUrl,
    apiKey: key,
    timeoutMs: opts.timeoutMs ?? HTTP_DEFAULTS.timeoutMs,
    maxBodyBytes: opts.maxBodyBytes ?? HTTP_DEFAULTS.maxBodyBytes,
    stats,
    connections: Math.max(1, concurrency),
  });
  const queued = withQueue(opts.gate ? withGate(transport, opts.gate) : transport, concurrency);
  const healthRequest = (signal?: AbortSignal): ApiRequest => ({ method: 'GET', template: '/', api: false, signal });
  const stack = withRetry(queued, {
    retries: opts.retries ?? HTTP_DEFAULTS.retries,
    backoff: {
      baseMs: opts.backoffBaseMs ?? HTTP_DEFAULTS.backoffBaseMs,
      maxMs: opts.backoffMaxMs ?? HTTP_DEFAULTS.backoffMaxMs,
      random: opts.random,
    },
    stats,
    onRetry: opts.onRetry,
    logger: opts.logger,
    probeDatabase: async (signal) => {
      try {
        return readHealth(await queued.send(healthRequest(signal))).databaseUp;
      } catch {
        return null;
      }
    },
  });

  /** Sends through the stack and decodes a 2xx; any failure leaves as a scrubbed WbsyncError. */
  async function call<T>(
    method: HttpMethod,
    template: string,
    params: Record<string, string>,
    decode: (res: ApiResponse) => T,
    extra: { body?: unknown; query?: Query; opts?: CallOptions } = {},
  ): Promise<T> {
    try {
      const res = await stack.send({ method, template, params, body: extra.body, query: extra.query, signal: extra.opts?.signal });
      if (res.status < 200 || res.status >= 300) throw errorFromResponse(res);
      return decode(res);
    } catch (err) {
      throw scrubError(err, key);
    }
  }

  const get = <T>(t: string, p: Record<string, string>, d: (r: ApiResponse) => T, o?: CallOptions, query?: Query) =>
    call('GET', t, p, d, { opts: o, query });
  const post = <T>(t: string, p: Record<string, string>, body: unknown, d: (r: ApiResponse) => T, o?: CallOptions) =>
    call('POST', t, p, d, { body, opts: o });
  const put = <T>(t: string, p: Record<string, string>, body: unknown, d: (r: ApiResponse) => T, o?: CallOptions) =>
    call('PUT', t, p, d, { body, opts: o });
  const del = (t: string, p: Record<string, string>, o?: CallOptions): Promise<void> =>
    // A delete's answer carries nothing we keep; an empty 2xx body (a 204 behind a proxy) is fine.
    call('DELETE', t, p, (r) => void (r.text.trim() === '' ? undefined : decodeObject(r, s.AnyObjectSchema)), { opts: o });

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

  const client: ServiceClient = {
    async health(o?: CallOptions): Promise<Health> {
      try {
        return readHealth(await queued.send(healthRequest(o?.signal)));
      } catch (err) {
        throw scrubError(err, key);
      }
    },

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

    stats: () => stats.snapshot(),
    close: () => stack.close(),
  };
  return client;
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

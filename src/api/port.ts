// The client port: every call wbsync makes to the Workspace Board Service, in domain terms.
// Implementations: the undici client (http-client.ts) and its decorators. Both dialects'
// bodies (wrapped or not) come out as the same normalised entities, with `raw` kept.

import type {
  Activity,
  Amendment,
  Automation,
  BoardRecord,
  Cell,
  Collection,
  Column,
  ColumnScope,
  Member,
  Module,
  ModuleAccess,
  ReferencesMap,
  StatusOption,
  Tag,
  Workspace,
} from '../domain/entities.js';

export interface Health {
  /** true when the service says its database is reachable. */
  databaseUp: boolean;
  status: number;
  raw: Record<string, unknown> | null;
}

export interface ActivityQuery {
  limit?: number;
  before?: string;
  moduleId?: string;
  recordId?: string;
  userId?: string;
  action?: string;
  source?: 'automation' | 'person';
}

export interface ActivityPage {
  activities: Activity[];
  hasMore: boolean;
  nextCursor: string | null;
  retentionDays: number | null;
}

export interface RequestStats {
  /** Requests sent (each retry counts once more here). */
  requests: number;
  retries: number;
  /** by status class: '2xx', '4xx', '5xx', 'network' */
  byClass: Record<string, number>;
}

export interface CreateColumnInput {
  name: string;
  type: string;
  scope?: ColumnScope;
  settings?: Record<string, unknown>;
}

export interface UpdateColumnInput {
  name?: string;
  width?: number;
  position?: number;
  statusOptions?: StatusOption[];
}

export interface UpdateRecordInput {
  name?: string;
  position?: number;
  collectionName?: string;
  isCompleted?: boolean;
  isArchived?: boolean;
}

export interface CreateValueInput {
  record: string;
  column: string;
  collectionName: string;
  module: string;
  workspace: string;
  value: string;
}

export interface AutomationInput {
  name: string;
  trigger: Record<string, unknown>;
  conditions: unknown[];
  match: string;
  actions: Record<string, unknown>[];
  isActive?: boolean;
}

/** Options common to every call. */
export interface CallOptions {
  signal?: AbortSignal;
  /** Sent ahead of the client's queued requests of a lower priority (default 0). */
  priority?: number;
}

export interface ServiceClient {
  // --- health and identity
  /** GET / (outside /api, no auth). Never throws for a 503: reports databaseUp false. */
  health(opts?: CallOptions): Promise<Health>;

  // --- reads
  listWorkspaces(opts?: CallOptions): Promise<Workspace[]>;
  getWorkspace(workspaceId: string, opts?: CallOptions): Promise<Workspace>;
  listMembers(workspaceId: string, opts?: CallOptions): Promise<Member[]>;
  listModules(workspaceId: string, opts?: CallOptions): Promise<Module[]>;
  listCollections(moduleId: string, opts?: CallOptions): Promise<Collection[]>;
  listColumns(moduleId: string, scope: ColumnScope, opts?: CallOptions): Promise<Column[]>;
  listRecords(collectionId: string, opts?: CallOptions): Promise<BoardRecord[]>;
  listSubRecords(recordId: string, opts?: CallOptions): Promise<BoardRecord[]>;
  listValues(recordId: string, opts?: CallOptions): Promise<Cell[]>;
  getReferences(moduleId: string, opts?: CallOptions): Promise<ReferencesMap>;
  listAmendments(recordId: string, opts?: CallOptions): Promise<Amendment[]>;
  listModuleAutomations(moduleId: string, opts?: CallOptions): Promise<Automation[]>;
  listWorkspaceAutomations(workspaceId: string, opts?: CallOptions): Promise<Automation[]>;
  /** Owner/admin only: 403 (WbsyncError code 'forbidden') otherwise. */
  getModuleAccess(workspaceId: string, userId: string, opts?: CallOptions): Promise<ModuleAccess[]>;
  listActivity(workspaceId: string, query: ActivityQuery, opts?: CallOptions): Promise<ActivityPage>;

  // --- writes (never retried blindly: a create with an unknown outcome throws with retryable false
  //     and details.outcomeUnknown = true, so the caller can look the object up first)
  /** The caller becomes its owner. */
  createWorkspace(body: { name: string; icon?: string }, opts?: CallOptions): Promise<Workspace>;
  updateWorkspace(workspaceId: string, body: { name?: string; description?: string; icon?: string; banner?: string }, opts?: CallOptions): Promise<Workspace>;
  /** Adds an existing user (by id) with a role (admin, member, guest). */
  addMember(workspaceId: string, body: { userId: string; role: string }, opts?: CallOptions): Promise<Member | null>;
  setMemberRole(workspaceId: string, userId: string, role: string, opts?: CallOptions): Promise<Member | null>;
  createModule(workspaceId: string, body: { name: string; description?: string; tags?: Tag[] }, opts?: CallOptions): Promise<Module>;
  updateModule(
    moduleId: string,
    body: { name?: string; description?: string; icon?: string; color?: string; tags?: Tag[]; visibility?: string },
    opts?: CallOptions,
  ): Promise<Module>;
  deleteModule(moduleId: string, opts?: CallOptions): Promise<void>;
  createCollection(moduleId: string, body: { name: string; color?: string; position?: number }, opts?: CallOptions): Promise<Collection>;
  updateCollection(
    collectionId: string,
    body: { name?: string; color?: string; position?: number; isCollapsed?: boolean },
    opts?: CallOptions,
  ): Promise<Collection>;
  deleteCollection(collectionId: string, opts?: CallOptions): Promise<void>;
  createColumn(moduleId: string, body: CreateColumnInput, opts?: CallOptions): Promise<Column>;
  updateColumn(columnId: string, body: UpdateColumnInput, opts?: CallOptions): Promise<Column>;
  deleteColumn(columnId: string, opts?: CallOptions): Promise<void>;
  createRecord(collectionId: string, body: { name: string }, opts?: CallOptions): Promise<BoardRecord>;
  createSubRecord(parentRecordId: string, body: { name: string }, opts?: CallOptions): Promise<BoardRecord>;
  updateRecord(recordId: string, body: UpdateRecordInput, opts?: CallOptions): Promise<BoardRecord>;
  deleteRecord(recordId: string, opts?: CallOptions): Promise<{ archivedSubRecords: number }>;
  createValue(body: CreateValueInput, opts?: CallOptions): Promise<Cell>;
  updateValue(valueId: string, body: { value: string }, opts?: CallOptions): Promise<Cell>;
  deleteValue(valueId: string, opts?: CallOptions): Promise<void>;
  createAmendment(
    recordId: string,
    body: { message: string; parentComment?: string; mentions?: string[] },
    opts?: CallOptions,
  ): Promise<Amendment>;
  updateAmendment(amendmentId: string, body: { message: string }, opts?: CallOptions): Promise<Amendment>;
  deleteAmendment(amendmentId: string, opts?: CallOptions): Promise<void>;
  createModuleAutomation(moduleId: string, body: AutomationInput, opts?: CallOptions): Promise<Automation>;
  createWorkspaceAutomation(workspaceId: string, body: AutomationInput, opts?: CallOptions): Promise<Automation>;
  updateAutomation(automationId: string, body: Partial<AutomationInput>, opts?: CallOptions): Promise<Automation>;
  deleteAutomation(automationId: string, opts?: CallOptions): Promise<void>;
  /** Replaces the whole grant set of `userId`. */
  putModuleAccess(workspaceId: string, userId: string, moduleIds: string[], opts?: CallOptions): Promise<string[]>;

  // --- bookkeeping
  stats(): RequestStats;
  close(): Promise<void>;
}

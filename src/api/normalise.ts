// From validated bodies to domain entities. `raw` is always the object exactly as received
// (never a copy: copying by assignment is how a `__proto__` key turns into pollution).
// Ids the body does not carry come from the call (`ctx`): the route says whose children these are.

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
  RawObject,
  StatusOption,
  Tag,
  Workspace,
} from '../domain/entities.js';
import type {
  ActivityBody,
  AmendmentBody,
  AutomationBody,
  CellBody,
  CollectionBody,
  ColumnBody,
  MemberBody,
  ModuleAccessBody,
  ModuleBody,
  RecordBody,
  Ref,
  WorkspaceBody,
} from './schemas.js';

export interface NormaliseContext {
  workspaceId?: string;
  moduleId?: string;
  recordId?: string;
  userId?: string;
  scope?: ColumnScope;
}

/** The id of a reference: an id string or a populated object's `_id`. */
export function refId(ref: Ref): string | null {
  if (ref === undefined || ref === null) return null;
  return typeof ref === 'string' ? ref : ref._id;
}

const orNull = <T>(v: T | null | undefined): T | null => (v === undefined ? null : v);

/** JSON text of a value, or null when the service sent nothing. */
export function jsonTextOrNull(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  return JSON.stringify(v) ?? null;
}

/** Cell values are strings by convention; anything else is kept as JSON text. */
export function cellValueText(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  return typeof v === 'string' ? v : (JSON.stringify(v) ?? null);
}

function labelled(list: { label: string; color?: string | null }[] | null | undefined): Tag[] {
  return (list ?? []).map((t) => ({ label: t.label, color: t.color ?? '' }));
}

export function toWorkspace(b: WorkspaceBody, raw: RawObject): Workspace {
  return {
    id: b._id,
    name: b.name,
    slug: orNull(b.slug),
    description: orNull(b.description),
    icon: orNull(b.icon),
    banner: orNull(b.banner),
    createdAt: orNull(b.createdAt),
    updatedAt: orNull(b.updatedAt),
    raw,
  };
}

/** null for a membership whose user account no longer exists: it has no user to key it by. */
export function toMember(b: MemberBody, raw: RawObject, ctx: NormaliseContext): Member | null {
  if (b.user === null) return null;
  const user = typeof b.user === 'string' ? null : b.user;
  return {
    workspaceId: ctx.workspaceId ?? '',
    userId: typeof b.user === 'string' ? b.user : b.user._id,
    membershipId: orNull(b._id),
    role: b.role,
    status: orNull(b.status),
    firstName: orNull(user?.firstName),
    lastName: orNull(user?.lastName),
    email: orNull(user?.email),
    joinedAt: orNull(b.joinedAt),
    raw,
  };
}

export function toModule(b: ModuleBody, raw: RawObject, ctx: NormaliseContext): Module {
  return {
    id: b._id,
    workspaceId: refId(b.workspace) ?? ctx.workspaceId ?? '',
    name: b.name,
    description: orNull(b.description),
    icon: orNull(b.icon),
    color: orNull(b.color),
    visibility: orNull(b.visibility),
    tags: labelled(b.tags),
    createdAt: orNull(b.createdAt),
    updatedAt: orNull(b.updatedAt),
    raw,
  };
}

export function toCollection(b: CollectionBody, raw: RawObject, ctx: NormaliseContext): Collection {
  return {
    id: b._id,
    moduleId: refId(b.module) ?? ctx.moduleId ?? '',
    name: b.name,
    color: orNull(b.color),
    position: orNull(b.position),
    isCollapsed: b.isCollapsed ?? false,
    tieRank: null,
    raw,
  };
}

export function toColumn(b: ColumnBody, raw: RawObject, ctx: NormaliseContext): Column {
  // The scope comes from the call (which list was asked for); a body's own field is the fallback.
  const scope: ColumnScope = ctx.scope ?? (b.scope === 'subrecord' ? 'subrecord' : 'record');
  const options: StatusOption[] | null = b.statusOptions == null ? null : labelled(b.statusOptions);
  return {
    id: b._id,
    moduleId: refId(b.module) ?? ctx.moduleId ?? '',
    scope,
    name: b.name,
    type: b.type,
    position: orNull(b.position),
    width: orNull(b.width),
    isRequired: b.isRequired ?? false,
    isHidden: b.isHidden ?? false,
    statusOptions: options,
    settings: orNull(b.settings),
    tieRank: null,
    raw,
  };
}

export function toRecord(b: RecordBody, raw: RawObject, ctx: NormaliseContext): BoardRecord {
  return {
    id: b._id,
    workspaceId: refId(b.workspace) ?? ctx.workspaceId ?? '',
    moduleId: refId(b.module) ?? ctx.moduleId ?? '',
    // `collectionName` holds the collection's id, despite its name.
    collectionId: refId(b.collectionName),
    parentRecordId: refId(b.parentRecord),
    name: b.name,
    position: orNull(b.position),
    isCompleted: b.isCompleted ?? false,
    isArchived: b.isArchived ?? false,
    subRecordCount: b.subRecordCount ?? 0,
    amendmentCount: b.amendmentCount ?? 0,
    createdAt: orNull(b.createdAt),
    updatedAt: orNull(b.updatedAt),
    raw,
  };
}

export function toCell(b: CellBody, raw: RawObject, ctx: NormaliseContext): Cell {
  return {
    id: b._id,
    recordId: refId(b.record) ?? ctx.recordId ?? '',
    // `column: null` is the value of a deleted column.
    columnId: refId(b.column),
    value: cellValueText(b.value),
    createdAt: orNull(b.createdAt),
    updatedAt: orNull(b.updatedAt),
    raw,
  };
}

export function toAmendment(b: AmendmentBody, raw: RawObject, ctx: NormaliseContext): Amendment {
  return {
    id: b._id,
    workspaceId: refId(b.workspace) ?? ctx.workspaceId ?? null,
    moduleId: refId(b.module) ?? ctx.moduleId ?? null,
    recordId: refId(b.record) ?? ctx.recordId ?? '',
    parentId: refId(b.parentComment),
    // A tombstone has `user: null`.
    userId: refId(b.user),
    message: b.message ?? '',
    edited: b.edited ?? false,
    isDeleted: b.isDeleted ?? false,
    createdAt: orNull(b.createdAt),
    raw,
  };
}

function errorText(v: unknown): string | null {
  if (v === undefined || v === null || v === '') return null;
  return typeof v === 'string' ? v : (JSON.stringify(v) ?? null);
}

export function toAutomation(b: AutomationBody, raw: RawObject, ctx: NormaliseContext): Automation {
  const moduleId = refId(b.module) ?? null;
  // `module: null` is a workspace-scoped automation, whatever (if anything) `scope` says.
  const scope = b.scope === 'workspace' || b.scope === 'module' ? b.scope : moduleId === null ? 'workspace' : 'module';
  return {
    id: b._id,
    workspaceId: refId(b.workspace) ?? ctx.workspaceId ?? '',
    moduleId: moduleId ?? (scope === 'module' ? (ctx.moduleId ?? null) : null),
    scope,
    name: b.name,
    trigger: b.trigger ?? {},
    conditions: b.conditions ?? [],
    match: b.match ?? 'all',
    actions: b.actions ?? [],
    isActive: b.isActive ?? true,
    runCount: b.runCount ?? 0,
    lastRunAt: orNull(b.lastRunAt),
    lastError: errorText(b.lastError),
    createdAt: orNull(b.createdAt),
    raw,
  };
}

export function toActivity(b: ActivityBody, raw: RawObject, ctx: NormaliseContext): Activity {
  return {
    id: b._id,
    // The feed asked for is the workspace; an automation row's own `workspace` is the fallback.
    workspaceId: ctx.workspaceId ?? refId(b.workspace) ?? '',
    action: b.action,
    message: orNull(b.message),
    targetName: orNull(b.targetName),
    moduleId: refId(b.module),
    collectionId: refId(b.collectionName),
    recordId: refId(b.record),
    columnId: refId(b.column),
    userId: refId(b.user),
    automationId: refId(b.automation),
    before: jsonTextOrNull(b.before),
    after: jsonTextOrNull(b.after),
    createdAt: b.createdAt,
    raw,
  };
}

export function toModuleAccess(b: ModuleAccessBody, raw: RawObject, ctx: NormaliseContext): ModuleAccess {
  return {
    workspaceId: ctx.workspaceId ?? '',
    userId: ctx.userId ?? '',
    moduleId: b._id,
    granted: b.granted ?? false,
    openToRole: b.openToRole ?? false,
    canAccess: b.canAccess ?? false,
    isCreator: b.isCreator ?? false,
    raw,
  };
}

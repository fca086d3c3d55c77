// Normalised entities as wbsync understands them, one per reporting view. The API layer turns
// either dialect's bodies into these; the store versions them; restore reads them back.
// Every entity keeps `raw`: the object exactly as received, unknown fields included.

export type RawObject = Record<string, unknown>;

export type EntityKind =
  | 'workspace'
  | 'member'
  | 'module'
  | 'collection'
  | 'column'
  | 'record'
  | 'cell'
  | 'amendment'
  | 'automation'
  | 'activity'
  | 'moduleAccess'
  | 'reference';

export interface Workspace {
  id: string;
  name: string;
  slug: string | null;
  description: string | null;
  icon: string | null;
  banner: string | null;
  createdAt: string | null;
  updatedAt: string | null;
  raw: RawObject;
}

export interface Member {
  workspaceId: string;
  userId: string;
  membershipId: string | null;
  role: string;
  status: string | null;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  joinedAt: string | null;
  raw: RawObject;
}

export interface Tag {
  label: string;
  color: string;
}

export interface Module {
  id: string;
  workspaceId: string;
  name: string;
  description: string | null;
  icon: string | null;
  color: string | null;
  visibility: string | null;
  tags: Tag[];
  createdAt: string | null;
  updatedAt: string | null;
  raw: RawObject;
}

export interface Collection {
  id: string;
  moduleId: string;
  name: string;
  color: string | null;
  position: number | null;
  isCollapsed: boolean;
  /** See Column.tieRank. */
  tieRank: number | null;
  raw: RawObject;
}

export type ColumnScope = 'record' | 'subrecord';

export interface StatusOption {
  label: string;
  color: string;
}

export interface Column {
  id: string;
  moduleId: string;
  scope: ColumnScope;
  name: string;
  type: string;
  position: number | null;
  width: number | null;
  isRequired: boolean;
  isHidden: boolean;
  statusOptions: StatusOption[] | null;
  settings: RawObject | null;
  /**
   * Index among the siblings the service listed at the same position (0 when alone there): the
   * service orders ties by creation time, which the published interface does not give for
   * collections and columns, so the listing order is kept. Null when read before it was kept.
   */
  tieRank: number | null;
  raw: RawObject;
}

/** A record or a sub-record (parentRecordId set). Named BoardRecord to avoid TS's Record<>. */
export interface BoardRecord {
  id: string;
  workspaceId: string;
  moduleId: string;
  collectionId: string | null;
  parentRecordId: string | null;
  name: string;
  position: number | null;
  isCompleted: boolean;
  isArchived: boolean;
  subRecordCount: number;
  amendmentCount: number;
  createdAt: string | null;
  updatedAt: string | null;
  raw: RawObject;
}

export interface Cell {
  id: string;
  recordId: string;
  /** null when the service returned the value of a deleted column (`column: null`). */
  columnId: string | null;
  /** The value as the service sent it; non-string JSON is kept as JSON text. */
  value: string | null;
  createdAt: string | null;
  updatedAt: string | null;
  raw: RawObject;
}

export interface Amendment {
  id: string;
  workspaceId: string | null;
  moduleId: string | null;
  recordId: string;
  parentId: string | null;
  /** null for tombstones (`user: null`). */
  userId: string | null;
  message: string;
  edited: boolean;
  isDeleted: boolean;
  createdAt: string | null;
  raw: RawObject;
}

export interface Automation {
  id: string;
  workspaceId: string;
  moduleId: string | null;
  scope: 'module' | 'workspace';
  name: string;
  trigger: RawObject;
  conditions: unknown[];
  match: string;
  actions: RawObject[];
  isActive: boolean;
  runCount: number;
  lastRunAt: string | null;
  lastError: string | null;
  createdAt: string | null;
  raw: RawObject;
}

export interface Activity {
  id: string;
  workspaceId: string;
  action: string;
  message: string | null;
  targetName: string | null;
  moduleId: string | null;
  collectionId: string | null;
  recordId: string | null;
  columnId: string | null;
  userId: string | null;
  automationId: string | null;
  /** JSON text of the service's `before` value (null when absent). */
  before: string | null;
  /** JSON text of the service's `after` value (null when absent). */
  after: string | null;
  createdAt: string;
  raw: RawObject;
}

/** One row of GET /module-access/{ws}/{user}: may `userId` open `moduleId`, and why. */
export interface ModuleAccess {
  workspaceId: string;
  userId: string;
  moduleId: string;
  granted: boolean;
  openToRole: boolean;
  canAccess: boolean;
  isCreator: boolean;
  raw: RawObject;
}

/** One resolved relation/reference cell of GET /record-values/references/{module}. */
export interface ResolvedReference {
  moduleId: string;
  recordId: string;
  columnId: string;
  /** JSON text of `items` (null when absent). */
  items: unknown;
  display: unknown;
  raw: RawObject;
}

/** `{items, display}` per (record, column) from GET /record-values/references/{module}. */
export type ReferencesMap = Record<string, Record<string, unknown>>;

/** A `record_created` feed row whose message says this: the record is a sub-record (the row names no parent). */
export const SUB_RECORD_CREATION = /sub-?record/i;

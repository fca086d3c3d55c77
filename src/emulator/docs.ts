// Internal documents. Field names follow the API (`_id`, `collectionName`, `parentRecord`...) so a
// dump() reads like the service; internal-only flags are `isDeleted`, `deletedAt` and friends.

export type Role = 'owner' | 'admin' | 'member' | 'guest';
export type ColumnScope = 'record' | 'subrecord';
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface Deletable {
  isDeleted: boolean;
  deletedAt: string | null;
}

export interface UserDoc {
  _id: string;
  firstName: string;
  lastName: string;
  email: string;
  presence: string;
  apiKey: string | null;
  /** When the current key was generated (drives the 20-minute window in the spec dialect). */
  apiKeyGeneratedAt: string | null;
  sessionToken: string;
  isBot: boolean;
  createdAt: string;
}

export interface WorkspaceDoc extends Deletable {
  _id: string;
  name: string;
  slug: string;
  description: string;
  icon: string;
  banner: string;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

export interface MemberDoc extends Deletable {
  _id: string;
  workspace: string;
  user: string;
  role: Role;
  status: 'active' | 'pending';
  joinedAt: string;
  invitedBy: string | null;
}

export interface TagDoc {
  label: string;
  color: string;
}

export interface ModuleDoc extends Deletable {
  _id: string;
  workspace: string;
  name: string;
  description: string;
  icon: string;
  color: string;
  visibility: 'private' | 'workspace' | 'public';
  tags: TagDoc[];
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

export interface CollectionDoc extends Deletable {
  _id: string;
  module: string;
  workspace: string;
  name: string;
  color: string;
  position: number;
  isCollapsed: boolean;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

export interface StatusOptionDoc {
  label: string;
  color: string;
  /** Observed: Mongoose gives every entry of the array its own id (kept when one is sent). */
  _id?: string;
}

export interface ColumnDoc extends Deletable {
  _id: string;
  module: string;
  workspace: string;
  scope: ColumnScope;
  name: string;
  type: string;
  position: number;
  width: number;
  isRequired: boolean;
  isHidden: boolean;
  statusOptions: StatusOptionDoc[];
  settings: { [key: string]: Json };
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

export interface RecordDoc extends Deletable {
  _id: string;
  module: string;
  workspace: string;
  /** The collection id (the API's misleading field name). */
  collectionName: string;
  parentRecord: string | null;
  name: unknown;
  position: unknown;
  isCompleted: boolean;
  isArchived: boolean;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

export interface ValueDoc extends Deletable {
  _id: string;
  record: string;
  column: string;
  module: string;
  workspace: string;
  collectionName: string;
  value: Json;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

export interface AmendmentDoc extends Deletable {
  _id: string;
  record: string;
  module: string;
  workspace: string;
  user: string;
  message: string;
  parentComment: string | null;
  edited: boolean;
  mentions: string[];
  createdAt: string;
  updatedAt: string;
}

export interface AutomationDoc extends Deletable {
  _id: string;
  workspace: string;
  module: string | null;
  scope: 'module' | 'workspace';
  name: string;
  trigger: { [key: string]: Json };
  conditions: Json[];
  match: string;
  actions: Json[];
  isActive: boolean;
  runCount: number;
  lastRunAt: string | null;
  lastError: string;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

export interface NamedRef {
  _id: string;
  name: string;
}

/** How to undo an activity row (the spec's revert). */
export type RevertPlan =
  | { kind: 'cell'; record: string; column: string; value: Json | null }
  | { kind: 'rename'; record: string; name: unknown }
  | { kind: 'move'; record: string; collection: string }
  | { kind: 'completion'; record: string; isCompleted: boolean }
  | { kind: 'archive'; record: string; isArchived: boolean };

export interface ActivityDoc {
  _id: string;
  workspace: string;
  action: string;
  message: string;
  targetName: string;
  before: Json;
  after: Json;
  user: string;
  module: NamedRef | null;
  collectionName: NamedRef | null;
  record: NamedRef | null;
  column: NamedRef | null;
  createdAt: string;
  /** Epoch ms of createdAt, for cheap sorting and paging. */
  ms: number;
  automation: NamedRef | null;
  triggeredBy: string | null;
  revert: RevertPlan | null;
  revertedAt: string | null;
}

export interface GrantDoc {
  _id: string;
  workspace: string;
  user: string;
  module: string;
  createdAt: string;
}

export interface NotificationDoc extends Deletable {
  _id: string;
  user: string;
  workspace: string | null;
  module: string | null;
  record: string | null;
  type: string;
  title: string;
  message: string;
  isRead: boolean;
  readAt: string | null;
  createdAt: string;
  updatedAt: string;
}

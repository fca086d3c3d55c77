// zod schemas of the service's bodies, as lenient as both dialects need and no more: ids and
// names must be there, everything else may be missing or null. Objects are loose (unknown fields
// pass validation); the normalisers keep the received object itself as `raw`.

import { z } from 'zod';
import { SERVICE_ID_PATTERN, SERVICE_ID_RULE } from '../domain/service-id.js';

const str = z.string();
/** Every id the service sends: a hostile one (`x$(touch …)`) is refused here, never stored or printed. */
export const IdSchema = z.string().regex(SERVICE_ID_PATTERN, { message: `expected ${SERVICE_ID_RULE}` });
const id = IdSchema;
const optId = IdSchema.nullish();
const optStr = z.string().nullish();
const optNum = z.number().nullish();
const optBool = z.boolean().nullish();

/** A reference: an id, a populated `{_id, ...}` object, or null. */
export const RefSchema = z.union([id, z.looseObject({ _id: id }), z.null()]).optional();
export type Ref = z.infer<typeof RefSchema>;

export const TagSchema = z.looseObject({ label: str, color: optStr });
export type TagBody = z.infer<typeof TagSchema>;

export const StatusOptionSchema = z.looseObject({ label: str, color: optStr });

export const WorkspaceSchema = z.looseObject({
  _id: id,
  name: str,
  slug: optStr,
  description: optStr,
  icon: optStr,
  banner: optStr,
  createdAt: optStr,
  updatedAt: optStr,
});
export type WorkspaceBody = z.infer<typeof WorkspaceSchema>;

/** GET /workspaces items: a membership row `{workspace: {...}}` (spec) or the workspace itself. */
export const WorkspaceListItemSchema = z.union([z.looseObject({ workspace: WorkspaceSchema }), WorkspaceSchema]);

export const MemberUserSchema = z.looseObject({
  _id: id,
  firstName: optStr,
  lastName: optStr,
  email: optStr,
});

export const MemberSchema = z.looseObject({
  _id: optId,
  role: str,
  status: optStr,
  joinedAt: optStr,
  // null when the member's account was deleted (the deployed service populates a missing user as null)
  user: z.union([id, MemberUserSchema]).nullable(),
});
export type MemberBody = z.infer<typeof MemberSchema>;

export const ModuleSchema = z.looseObject({
  _id: id,
  name: str,
  workspace: RefSchema,
  description: optStr,
  icon: optStr,
  color: optStr,
  visibility: optStr,
  tags: z.array(TagSchema).nullish(),
  createdAt: optStr,
  updatedAt: optStr,
});
export type ModuleBody = z.infer<typeof ModuleSchema>;

export const CollectionSchema = z.looseObject({
  _id: id,
  name: str,
  module: RefSchema,
  color: optStr,
  position: optNum,
  isCollapsed: optBool,
});
export type CollectionBody = z.infer<typeof CollectionSchema>;

export const ColumnSchema = z.looseObject({
  _id: id,
  name: str,
  // The observed service stores a missing type as `text`; a spec body always has one.
  type: z.string().default('text'),
  module: RefSchema,
  scope: optStr,
  position: optNum,
  width: optNum,
  isRequired: optBool,
  isHidden: optBool,
  statusOptions: z.array(StatusOptionSchema).nullish(),
  settings: z.record(z.string(), z.unknown()).nullish(),
});
export type ColumnBody = z.infer<typeof ColumnSchema>;

export const RecordSchema = z.looseObject({
  _id: id,
  name: str,
  position: optNum,
  collectionName: RefSchema,
  parentRecord: RefSchema,
  module: RefSchema,
  workspace: RefSchema,
  subRecordCount: optNum,
  amendmentCount: optNum,
  isCompleted: optBool,
  isArchived: optBool,
  createdAt: optStr,
  updatedAt: optStr,
});
export type RecordBody = z.infer<typeof RecordSchema>;

export const CellSchema = z.looseObject({
  _id: id,
  record: RefSchema,
  column: RefSchema,
  value: z.unknown().optional(),
  createdAt: optStr,
  updatedAt: optStr,
});
export type CellBody = z.infer<typeof CellSchema>;

export const AmendmentSchema = z.looseObject({
  _id: id,
  record: RefSchema,
  module: RefSchema,
  workspace: RefSchema,
  user: RefSchema,
  // A tombstone has `message: ""`; some bodies may omit it.
  message: z.string().nullish(),
  parentComment: RefSchema,
  edited: optBool,
  isDeleted: optBool,
  createdAt: optStr,
});
export type AmendmentBody = z.infer<typeof AmendmentSchema>;

export const AutomationSchema = z.looseObject({
  _id: id,
  name: str,
  workspace: RefSchema,
  module: RefSchema,
  scope: optStr,
  trigger: z.record(z.string(), z.unknown()).nullish(),
  conditions: z.array(z.unknown()).nullish(),
  match: optStr,
  actions: z.array(z.record(z.string(), z.unknown())).nullish(),
  isActive: optBool,
  runCount: optNum,
  lastRunAt: optStr,
  // "" when none (observed); shape unspecified by the spec, so accept anything.
  lastError: z.unknown().optional(),
  createdAt: optStr,
});
export type AutomationBody = z.infer<typeof AutomationSchema>;

export const ActivitySchema = z.looseObject({
  _id: id,
  action: str,
  message: optStr,
  targetName: optStr,
  before: z.unknown().optional(),
  after: z.unknown().optional(),
  user: RefSchema,
  module: RefSchema,
  collectionName: RefSchema,
  record: RefSchema,
  column: RefSchema,
  automation: RefSchema,
  workspace: RefSchema,
  createdAt: str,
});
export type ActivityBody = z.infer<typeof ActivitySchema>;

export const ActivityPageSchema = z.looseObject({
  activities: z.array(z.unknown()),
  hasMore: optBool,
  nextCursor: optStr,
  retentionDays: optNum,
});
export type ActivityPageBody = z.infer<typeof ActivityPageSchema>;

export const ModuleAccessSchema = z.looseObject({
  _id: id,
  granted: optBool,
  openToRole: optBool,
  canAccess: optBool,
  isCreator: optBool,
});
export type ModuleAccessBody = z.infer<typeof ModuleAccessSchema>;

/** recordId -> columnId -> `{items, display}` */
export const ReferencesSchema = z.record(id, z.record(id, z.unknown()));

export const DeleteRecordSchema = z.looseObject({ archivedSubRecords: optNum });

export const ModuleIdsSchema = z.looseObject({ moduleIds: z.array(id).nullish() });

/** Any JSON object (the `{message}` answer of deletes). */
export const AnyObjectSchema = z.looseObject({});

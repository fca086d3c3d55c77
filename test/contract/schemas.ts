// Resource shapes as the spec's field tables state them, written from the documents only (the
// product's own schemas live in src/api and must never be reused here). Objects are loose: the
// deployed service adds fields (__v, createdBy, ...) that a client keeps.

import { z } from 'zod';

/** "Timestamps are ISO 8601 UTC strings with milliseconds." */
export const TimestampSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, 'ISO 8601 UTC timestamp with milliseconds');
const Id = z.string().min(1);
const OptText = z.string().nullish();

export const WorkspaceSchema = z.looseObject({
  _id: Id,
  name: z.string(),
  slug: OptText,
  description: OptText,
  icon: OptText,
  banner: OptText,
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
  totalModules: z.number().optional(),
});
export type Workspace = z.infer<typeof WorkspaceSchema>;

export const UserRefSchema = z.looseObject({
  _id: Id,
  firstName: z.string().nullish(),
  lastName: z.string().nullish(),
  email: z.string(),
});

export const MemberSchema = z.looseObject({
  _id: Id,
  role: z.enum(['owner', 'admin', 'member', 'guest']),
  status: z.string(),
  joinedAt: TimestampSchema.nullish(),
  user: UserRefSchema.extend({ presence: z.string().nullish() }),
});
export type Member = z.infer<typeof MemberSchema>;

export const TagSchema = z.looseObject({ label: z.string(), color: z.string() });

export const ModuleSchema = z.looseObject({
  _id: Id,
  name: z.string(),
  description: OptText,
  icon: OptText,
  color: OptText,
  visibility: z.enum(['private', 'workspace', 'public']),
  tags: z.array(TagSchema).optional(),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
  totalRecords: z.number().optional(),
  completedRecords: z.number().optional(),
  performance: z.number().optional(),
});
export type Module = z.infer<typeof ModuleSchema>;

export const CollectionSchema = z.looseObject({
  _id: Id,
  name: z.string(),
  color: OptText,
  position: z.number(),
  isCollapsed: z.boolean().optional(),
});
export type Collection = z.infer<typeof CollectionSchema>;

export const RecordSchema = z.looseObject({
  _id: Id,
  name: z.string(),
  position: z.number(),
  collectionName: Id,
  parentRecord: z.string().nullable(),
  subRecordCount: z.number().optional(),
  amendmentCount: z.number().optional(),
  module: Id,
  workspace: Id,
  isCompleted: z.boolean(),
  isArchived: z.boolean(),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
});
export type BoardRecord = z.infer<typeof RecordSchema>;

export const COLUMN_TYPES = [
  'text', 'number', 'status', 'date', 'timeline', 'person', 'email', 'phone', 'checkbox',
  'dropdown', 'link', 'file', 'rating', 'relation', 'reference',
] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

export const StatusOptionSchema = z.looseObject({ label: z.string(), color: z.string() });

export const ColumnSchema = z.looseObject({
  _id: Id,
  name: z.string(),
  type: z.enum(COLUMN_TYPES),
  position: z.number().optional(),
  width: z.number().optional(),
  isRequired: z.boolean().optional(),
  isHidden: z.boolean().optional(),
  statusOptions: z.array(StatusOptionSchema).optional(),
  settings: z.record(z.string(), z.unknown()).nullish(),
});
export type Column = z.infer<typeof ColumnSchema>;

export const RecordValueSchema = z.looseObject({
  _id: Id,
  record: Id,
  /** Populated in lists; a create/update answer may carry just the id. */
  column: z.union([ColumnSchema, Id, z.null()]),
  value: z.unknown(),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
});
export type RecordValue = z.infer<typeof RecordValueSchema>;

/** The resolved references view: recordId -> columnId -> {items, display}. */
export const ReferencesSchema = z.record(
  z.string(),
  z.record(
    z.string(),
    z.looseObject({
      items: z.array(z.looseObject({ recordId: z.string(), name: z.string().nullish(), value: z.unknown() })),
      display: z.unknown(),
    }),
  ),
);

export const AmendmentSchema = z.looseObject({
  _id: Id,
  record: Id,
  module: Id,
  workspace: Id,
  /** null only for an observed tombstone. */
  user: UserRefSchema.nullable(),
  message: z.string(),
  parentComment: z.string().nullable(),
  edited: z.boolean(),
  isDeleted: z.boolean(),
  createdAt: TimestampSchema,
});
export type Amendment = z.infer<typeof AmendmentSchema>;

export const AutomationSchema = z.looseObject({
  _id: Id,
  workspace: Id,
  module: z.string().nullable(),
  scope: z.enum(['module', 'workspace']),
  name: z.string(),
  trigger: z.looseObject({ type: z.string() }),
  conditions: z.array(z.record(z.string(), z.unknown())),
  match: z.enum(['all', 'any']),
  actions: z.array(z.looseObject({ type: z.string() })),
  isActive: z.boolean(),
  runCount: z.number(),
  lastRunAt: TimestampSchema.nullish(),
  createdAt: TimestampSchema,
});
export type Automation = z.infer<typeof AutomationSchema>;

const NamedRefSchema = z.looseObject({ _id: z.string().nullish(), name: z.string().nullish() });

export const ActivitySchema = z.looseObject({
  _id: Id,
  action: z.string(),
  message: z.string(),
  targetName: z.string().nullish(),
  before: z.unknown(),
  after: z.unknown(),
  user: z.looseObject({ _id: Id }).nullish(),
  module: NamedRefSchema.nullish(),
  collectionName: NamedRefSchema.nullish(),
  record: NamedRefSchema.nullish(),
  column: NamedRefSchema.nullish(),
  createdAt: TimestampSchema,
  automation: z.looseObject({}).nullish(),
  triggeredBy: z.unknown(),
  canRevert: z.boolean(),
  revertBlocker: z.unknown(),
  revertedAt: TimestampSchema.nullish(),
});
export type Activity = z.infer<typeof ActivitySchema>;

export const ActivityPageSchema = z.looseObject({
  activities: z.array(ActivitySchema),
  hasMore: z.boolean(),
  nextCursor: TimestampSchema.nullable(),
  retentionDays: z.number(),
});
export type ActivityPage = z.infer<typeof ActivityPageSchema>;

export const ModuleAccessEntrySchema = z.looseObject({
  _id: Id,
  name: z.string(),
  visibility: z.enum(['private', 'workspace', 'public']),
  granted: z.boolean(),
  openToRole: z.boolean(),
  canAccess: z.boolean(),
  isCreator: z.boolean(),
});

export const NOTIFICATION_TYPES = [
  'mention', 'assignment', 'invite', 'comment', 'status_change', 'deadline', 'system',
] as const;

export const NotificationSchema = z.looseObject({
  _id: Id,
  user: Id,
  workspace: z.string().nullish(),
  module: z.string().nullish(),
  record: z.string().nullish(),
  type: z.enum(NOTIFICATION_TYPES),
  title: z.string(),
  message: z.string(),
  isRead: z.boolean(),
  readAt: TimestampSchema.nullable(),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
});
export type Notification = z.infer<typeof NotificationSchema>;

/** Parse or fail with the zod report and the offending value. */
export function parseAs<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const shown = JSON.stringify(value)?.slice(0, 600);
    throw new Error(`${what} does not match the spec's shape:\n${z.prettifyError(result.error)}\nvalue: ${shown}`);
  }
  return result.data;
}

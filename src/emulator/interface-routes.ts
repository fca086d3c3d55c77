// What each route of the emulator takes and answers, in both dialects: the published interface's
// request and response (spec dialect) and, where the deployed service differs, what it does instead
// (observed dialect). Keyed by route name (`METHOD /template`, as the route table writes it); a test
// holds these keys equal to the route table's, so a route cannot be added without its page entry.

export interface RouteDoc {
  /** The part of the interface the route belongs to. */
  group: string;
  /** Path, query and body, as the published interface writes them (* = required). */
  request: string;
  response: string;
  /** What the deployed service (observed dialect) does differently, when it does. */
  observed?: string;
}

export const ROUTE_DOCS: Readonly<Record<string, RouteDoc>> = {
  "GET /api-key": { group: "API keys", request: "none", response: "`{apiKey, nextAllowedAt}`; apiKey is null if never generated", observed: "Creates a key when none exists and answers `{apiKey}` only (no `nextAllowedAt`)." },
  "POST /api-key/generate": { group: "API keys", request: "none", response: "`{apiKey, nextAllowedAt}`; inside the rate window: 429 with `nextAllowedAt` in the error body", observed: "Answers `{message, apiKey}`; no 20-minute window and never 429. The old key dies at once." },
  "GET /workspaces": { group: "Workspaces", request: "none", response: "`{workspaces: [{workspace: Workspace}]}`, all workspaces the caller belongs to, each wrapped in its membership row" },
  "GET /workspaces/{id}": { group: "Workspaces", request: "path id*", response: "`{workspace}`", observed: "No permission check; a malformed id is a 500." },
  "POST /workspaces": { group: "Workspaces", request: "body `name*` string, `icon` string", response: "`{workspace}`; the caller becomes owner" },
  "PUT /workspaces/{id}": { group: "Workspaces", request: "body `name`, `description`, `icon`, `banner` (all string, all optional)", response: "`{workspace}`; owner or admin only", observed: "No permission check; not logged in the activity feed." },
  "DELETE /workspaces/{id}": { group: "Workspaces", request: "none", response: "`{message}`; owner only; deletes everything inside; irreversible", observed: "No permission check." },
  "GET /workspace-members/{workspaceId}": { group: "Workspace members", request: "none", response: "`{members: [Member]}` (role, status, presence)", observed: "Members are always `active`; no permission check." },
  "POST /workspace-members/{workspaceId}": { group: "Workspace members", request: "body `email` string (invite by email) or `userId` string (add existing user), not both; `role*` one of `admin`, `member`, `guest`", response: "`{member}`" },
  "PUT /workspace-members/{workspaceId}/{userId}": { group: "Workspace members", request: "body `role*` string; owner or admin only", response: "`{member}`" },
  "DELETE /workspace-members/{workspaceId}/{userId}": { group: "Workspace members", request: "none", response: "`{message}`" },
  "POST /workspace-members/{workspaceId}/accept": { group: "Workspace members", request: "none; caller is the invited user", response: "`{message}`" },
  "POST /workspace-members/{workspaceId}/decline": { group: "Workspace members", request: "none; caller is the invited user", response: "`{message}`" },
  "GET /modules/{workspaceId}": { group: "Modules", request: "none", response: "`{modules: [Module]}` with totalRecords, completedRecords, performance", observed: "A non-member, or an unknown workspace, gets 200 `{modules: []}`, not 403." },
  "POST /modules/{workspaceId}": { group: "Modules", request: "body `name*`, `description`, `tags` (array of {label,color})", response: "`{module}`", observed: "Creates the module only (no collections, no columns); defaults icon 📋, color #3B82F6, visibility `workspace`; answers `{message, module}`." },
  "PUT /modules/{moduleId}": { group: "Modules", request: "body `name`, `description`, `icon`, `color` (hex), `tags` (replaces the whole set; `[]` clears), `visibility` (`private`, `workspace`, `public`; owner or admin only)", response: "`{module}`", observed: "Answers `{message, module}`." },
  "DELETE /modules/{moduleId}": { group: "Modules", request: "none", response: "`{message}`; deletes collections, columns, records and cells; irreversible", observed: "Needs no role and does not cascade: what was in the module becomes unreachable (404 \"Board not found\")." },
  "GET /collections/{moduleId}": { group: "Collections", request: "none", response: "`{collections: [Collection]}` in module order" },
  "POST /collections/{moduleId}": { group: "Collections", request: "body `name*`, `color`, `position` (number; omit to append)", response: "the Collection object itself (not wrapped)", observed: "Answers `{message, collection}`; without `position` the collection gets 0." },
  "PUT /collections/{collectionId}": { group: "Collections", request: "body `name`, `color`, `position`, `isCollapsed` (boolean)", response: "the Collection object itself", observed: "Answers `{message, collection}`; colour, position and collapse are not logged." },
  "DELETE /collections/{collectionId}": { group: "Collections", request: "none", response: "`{message}`; deletes every record in it", observed: "Does not cascade: its records stay, unreachable unless they are sub-records listed under a live parent." },
  "GET /records/{collectionId}": { group: "Records", request: "none", response: "`{records: [Record]}`; top-level only; archived rows and sub-records excluded; each has subRecordCount and amendmentCount" },
  "POST /records/{collectionId}": { group: "Records", request: "body `name*`", response: "`{record}`", observed: "Ignores `position`: appended after the highest, archived rows included." },
  "GET /records/{recordId}/sub-records": { group: "Records", request: "none", response: "`{records: [Record]}` (the sub-records)" },
  "POST /records/{recordId}/sub-records": { group: "Records", request: "body `name*`", response: "`{record}`", observed: "The first sub-record of a module seeds three sub-record columns (Owner, Status, Due date) unless a sub-record column exists." },
  "PUT /records/{recordId}": { group: "Records", request: "body `name`, `position` (number), `collectionName` (target collection id), `isCompleted` (boolean), `isArchived` (boolean); path id may be a sub-record", response: "`{record}`", observed: "Stores the body unvalidated; `isArchived` and completion changes are not logged; moving a parent leaves its sub-records' `collectionName`." },
  "DELETE /records/{recordId}": { group: "Records", request: "none; path id may be a sub-record", response: "`{message, archivedSubRecords}` (number)", observed: "A soft delete: archives the record and its sub-records (`{message: \"Record archived successfully\", archivedSubRecords}`); repeating it answers 200." },
  "GET /record-values/{recordId}": { group: "Record values", request: "none", response: "`{values: [Record value]}`, each with its column populated", observed: "A value whose column was deleted comes back with `column: null`." },
  "GET /record-values/references/{moduleId}": { group: "Record values", request: "none", response: "`{references: ...}` resolved for every record in one request" },
  "POST /record-values": { group: "Record values", request: "body `record*`, `column*`, `collectionName*` (the record's collection id), `module*`, `workspace*` (all ids), `value*` (encoded per column type); creates the value row for a pair that has none", response: "the Record value object itself (not wrapped)", observed: "A (record, column) pair that has a value is updated (200 \"Value updated\"), without validation or automations; answers `{message, recordValue}` with `column` as an id." },
  "PUT /record-values/{recordValueId}": { group: "Record values", request: "body `value*`", response: "the Record value object itself", observed: "Answers `{message, recordValue}`; a cell write does not move the record's `updatedAt`." },
  "DELETE /record-values/{recordValueId}": { group: "Record values", request: "none", response: "`{message}`; the cell returns to empty", observed: "A hard delete." },
  "GET /columns/{moduleId}": { group: "Columns", request: "query `scope` string: `subrecord` for the sub-record grid; omit for the board's own", response: "`{columns: [Column]}`" },
  "POST /columns/{moduleId}": { group: "Columns", request: "body `name*`, `type*` (see types), `scope` (`subrecord`), `settings` object", response: "the Column object itself", observed: "Answers `{message, column}`; a missing `type` becomes `text`, width 180, position 0." },
  "PUT /columns/{columnId}": { group: "Columns", request: "body `name`, `width` (px), `position`, `statusOptions` (array of {label,color}; status columns only; replaces the whole set)", response: "the Column object itself", observed: "Answers `{message, column}`; accepts `settings` too; not logged." },
  "DELETE /columns/{columnId}": { group: "Columns", request: "none", response: "`{message}`; deletes every value stored in the column on every record", observed: "Does not cascade: the values stay, with `column: null` when read." },
  "GET /amendments/{recordId}": { group: "Amendments", request: "none", response: "`{amendments: [Amendment]}`, oldest first" },
  "POST /amendments/{recordId}": { group: "Amendments", request: "body `message*`, `parentComment` (id; makes it a reply), `mentions` (array of user ids)", response: "`{amendment}`", observed: "`mentions` is ignored; replying to a deleted parent is allowed." },
  "PUT /amendments/{amendmentId}": { group: "Amendments", request: "body `message*`; only an amendment the caller wrote", response: "`{amendment}`", observed: "Not logged; `edited` is set only when the text changed." },
  "DELETE /amendments/{amendmentId}": { group: "Amendments", request: "none", response: "`{message}`; a deleted parent with live replies is kept as a tombstone", observed: "Always soft: listed as a tombstone while a live reply points to it, else gone from the list." },
  "GET /automations/{moduleId}": { group: "Automations", request: "none", response: "`{automations: [Automation]}` scoped to the module, with run counts and last error" },
  "GET /automations/workspace/{workspaceId}": { group: "Automations", request: "none", response: "`{automations: [Automation]}` for recipes that watch every module; columns addressed by name" },
  "POST /automations/{moduleId}": { group: "Automations", request: "body `name*`, `trigger*`, `conditions*`, `match*`, `actions*`, `isActive` (default true); columns by id (`column`)", response: "`{message, automation}`" },
  "POST /automations/workspace/{workspaceId}": { group: "Automations", request: "same fields; columns by name (`columnName`)", response: "`{message, automation}`" },
  "PUT /automations/{automationId}": { group: "Automations", request: "any subset of the create fields; works for either scope", response: "`{message, automation}`", observed: "Takes `{isActive}` alone or a complete automation (a partial body is a 400); not logged." },
  "DELETE /automations/{automationId}": { group: "Automations", request: "none", response: "`{message}`" },
  "GET /activity/{workspaceId}": { group: "Activity", request: "query `limit` (number, page size), `moduleId`, `recordId`, `userId` (filters, string), `action` (comma-separated action names), `source` (`automation` = engine-written rows only, or `person`), `before` (ISO timestamp; pass back the previous page's `nextCursor`)", response: "`{activities: [Activity entry], hasMore: boolean, nextCursor: timestamp, retentionDays: number}`", observed: "`limit` defaults to 50, clamped to 1–100; `before` is strict and rows sharing the boundary millisecond can be skipped by a naive client; many writes are not logged." },
  "POST /activity/{workspaceId}/{activityId}/revert": { group: "Activity", request: "none", response: "`{message}`; only when the entry's `canRevert` is true", observed: "A refused revert is a 409 whose `message` is the reason in the service's words (the row's `revertBlocker`, or e.g. \"That record no longer exists\")." },
  "GET /module-access/{workspaceId}/{userId}": { group: "Module access", request: "none", response: "`{role, modules: [Module access entry]}` for every module in the workspace" },
  "PUT /module-access/{workspaceId}/{userId}": { group: "Module access", request: "body `moduleIds*` (array of string): the COMPLETE set of module ids the person may access; it replaces the whole grant set", response: "`{message, moduleIds}`", observed: "Unknown module ids are dropped silently; owner or admin only." },
  "GET /notifications": { group: "Notifications (the caller's own)", request: "query `limit` (number), `isRead` (boolean), `type` (`mention`, `assignment`, `invite`, `comment`, `status_change`, `deadline`, `system`)", response: "`{notifications: [Notification]}`, newest first" },
  "GET /notifications/unread-count": { group: "Notifications (the caller's own)", request: "none", response: "`{count: number}`" },
  "PATCH /notifications/{id}/read": { group: "Notifications (the caller's own)", request: "none", response: "`{notification}`" },
  "POST /notifications/read-all": { group: "Notifications (the caller's own)", request: "none", response: "`{message}`" },
  "DELETE /notifications/{id}": { group: "Notifications (the caller's own)", request: "none", response: "`{message}`" },
};

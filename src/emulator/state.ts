// The in-memory database: one map per collection plus the indexes that keep every request cheap
// (records by collection, values by record...). Deleted documents stay in the maps, flagged, so
// dump() shows them; indexes only ever point at documents that can still be reached.

import type {
  ActivityDoc,
  AmendmentDoc,
  AutomationDoc,
  CollectionDoc,
  ColumnDoc,
  GrantDoc,
  MemberDoc,
  ModuleDoc,
  NotificationDoc,
  RecordDoc,
  UserDoc,
  ValueDoc,
  WorkspaceDoc,
} from './docs.js';
import type { EmulatorClockImpl } from './emulator-clock.js';
import type { IdGenerator, Prng } from './ids.js';
import type { Dialect } from './types.js';

/** key -> set of ids, insertion-ordered. */
export class MultiIndex {
  private readonly map = new Map<string, Set<string>>();
  add(key: string, id: string): void {
    let set = this.map.get(key);
    if (!set) {
      set = new Set();
      this.map.set(key, set);
    }
    set.add(id);
  }
  remove(key: string, id: string): void {
    this.map.get(key)?.delete(id);
  }
  get(key: string): ReadonlySet<string> {
    return this.map.get(key) ?? EMPTY;
  }
  clear(): void {
    this.map.clear();
  }
}
const EMPTY: ReadonlySet<string> = new Set();

export interface StateConfig {
  dialect: Dialect;
  retentionDays: number;
}

export class EmulatorState {
  readonly users = new Map<string, UserDoc>();
  readonly workspaces = new Map<string, WorkspaceDoc>();
  readonly members = new Map<string, MemberDoc>();
  readonly modules = new Map<string, ModuleDoc>();
  readonly collections = new Map<string, CollectionDoc>();
  readonly columns = new Map<string, ColumnDoc>();
  readonly records = new Map<string, RecordDoc>();
  readonly values = new Map<string, ValueDoc>();
  readonly amendments = new Map<string, AmendmentDoc>();
  readonly automations = new Map<string, AutomationDoc>();
  readonly activity = new Map<string, ActivityDoc>();
  readonly grants = new Map<string, GrantDoc>();
  readonly notifications = new Map<string, NotificationDoc>();

  readonly userByKey = new Map<string, string>();
  readonly userBySession = new Map<string, string>();
  readonly userByEmail = new Map<string, string>();
  readonly membersByWorkspace = new MultiIndex();
  readonly modulesByWorkspace = new MultiIndex();
  readonly collectionsByModule = new MultiIndex();
  readonly columnsByModule = new MultiIndex();
  /** Top-level records only, archived included. */
  readonly recordsByCollection = new MultiIndex();
  /** Every record of a module, sub-records included. */
  readonly recordsByModule = new MultiIndex();
  readonly subRecordsByParent = new MultiIndex();
  /** record -> column -> value id. */
  readonly valuesByRecord = new Map<string, Map<string, string>>();
  readonly valuesByColumn = new MultiIndex();
  readonly amendmentsByRecord = new MultiIndex();
  readonly automationsByModule = new MultiIndex();
  readonly automationsByWorkspace = new MultiIndex();
  /** Per workspace, sorted by createdAt ascending (insertion order for ties). */
  readonly activityByWorkspace = new Map<string, ActivityDoc[]>();
  readonly grantsByWorkspace = new MultiIndex();
  readonly notificationsByUser = new MultiIndex();

  /** The system user automation rows are written by in the observed dialect. */
  botId = '';

  constructor(
    readonly config: StateConfig,
    readonly ids: IdGenerator,
    readonly clock: EmulatorClockImpl,
    /** Randomness for seeds (separate from ids so seed choices don't shift ids). */
    readonly prng: Prng,
  ) {}

  get dialect(): Dialect {
    return this.config.dialect;
  }

  // ---- users -------------------------------------------------------------------------------
  addUser(doc: UserDoc): void {
    this.users.set(doc._id, doc);
    if (doc.apiKey) this.userByKey.set(doc.apiKey, doc._id);
    this.userBySession.set(doc.sessionToken, doc._id);
    this.userByEmail.set(doc.email.toLowerCase(), doc._id);
  }

  setUserKey(user: UserDoc, key: string, at: string): void {
    if (user.apiKey) this.userByKey.delete(user.apiKey);
    user.apiKey = key;
    user.apiKeyGeneratedAt = at;
    this.userByKey.set(key, user._id);
  }

  // ---- inserts -----------------------------------------------------------------------------
  addWorkspace(doc: WorkspaceDoc): void {
    this.workspaces.set(doc._id, doc);
  }
  addMember(doc: MemberDoc): void {
    this.members.set(doc._id, doc);
    this.membersByWorkspace.add(doc.workspace, doc._id);
  }
  addModule(doc: ModuleDoc): void {
    this.modules.set(doc._id, doc);
    this.modulesByWorkspace.add(doc.workspace, doc._id);
  }
  addCollection(doc: CollectionDoc): void {
    this.collections.set(doc._id, doc);
    this.collectionsByModule.add(doc.module, doc._id);
  }
  addColumn(doc: ColumnDoc): void {
    this.columns.set(doc._id, doc);
    this.columnsByModule.add(doc.module, doc._id);
  }
  addRecord(doc: RecordDoc): void {
    this.records.set(doc._id, doc);
    this.recordsByModule.add(doc.module, doc._id);
    if (doc.parentRecord) this.subRecordsByParent.add(doc.parentRecord, doc._id);
    else this.recordsByCollection.add(doc.collectionName, doc._id);
  }
  moveRecord(doc: RecordDoc, collection: string): void {
    if (!doc.parentRecord) {
      this.recordsByCollection.remove(doc.collectionName, doc._id);
      this.recordsByCollection.add(collection, doc._id);
    }
    doc.collectionName = collection;
  }
  addValue(doc: ValueDoc): void {
    this.values.set(doc._id, doc);
    let byColumn = this.valuesByRecord.get(doc.record);
    if (!byColumn) {
      byColumn = new Map();
      this.valuesByRecord.set(doc.record, byColumn);
    }
    byColumn.set(doc.column, doc._id);
    this.valuesByColumn.add(doc.column, doc._id);
  }
  addAmendment(doc: AmendmentDoc): void {
    this.amendments.set(doc._id, doc);
    this.amendmentsByRecord.add(doc.record, doc._id);
  }
  addAutomation(doc: AutomationDoc): void {
    this.automations.set(doc._id, doc);
    if (doc.module) this.automationsByModule.add(doc.module, doc._id);
    else this.automationsByWorkspace.add(doc.workspace, doc._id);
  }
  addGrant(doc: GrantDoc): void {
    this.grants.set(doc._id, doc);
    this.grantsByWorkspace.add(doc.workspace, doc._id);
  }
  removeGrant(doc: GrantDoc): void {
    this.grants.delete(doc._id);
    this.grantsByWorkspace.remove(doc.workspace, doc._id);
  }
  addNotification(doc: NotificationDoc): void {
    this.notifications.set(doc._id, doc);
    this.notificationsByUser.add(doc.user, doc._id);
  }
  addActivity(doc: ActivityDoc): void {
    this.activity.set(doc._id, doc);
    let rows = this.activityByWorkspace.get(doc.workspace);
    if (!rows) {
      rows = [];
      this.activityByWorkspace.set(doc.workspace, rows);
    }
    // Appends are the norm (the clock only moves forward); a clock set backwards inserts in place.
    if (rows.length === 0 || rows[rows.length - 1]!.ms <= doc.ms) rows.push(doc);
    else rows.splice(upperBound(rows, doc.ms), 0, doc);
  }
  removeActivity(doc: ActivityDoc): void {
    this.activity.delete(doc._id);
    const rows = this.activityByWorkspace.get(doc.workspace);
    if (!rows) return;
    const i = rows.indexOf(doc);
    if (i >= 0) rows.splice(i, 1);
  }

  // ---- soft removal (index cleanup; the document stays for dump()) --------------------------
  markDeleted(doc: { isDeleted: boolean; deletedAt: string | null }, at: string): void {
    doc.isDeleted = true;
    doc.deletedAt = at;
  }
  unindexModule(doc: ModuleDoc): void {
    this.modulesByWorkspace.remove(doc.workspace, doc._id);
  }
  unindexCollection(doc: CollectionDoc): void {
    this.collectionsByModule.remove(doc.module, doc._id);
  }
  unindexColumn(doc: ColumnDoc): void {
    this.columnsByModule.remove(doc.module, doc._id);
  }
  unindexRecord(doc: RecordDoc): void {
    this.recordsByModule.remove(doc.module, doc._id);
    if (doc.parentRecord) this.subRecordsByParent.remove(doc.parentRecord, doc._id);
    else this.recordsByCollection.remove(doc.collectionName, doc._id);
  }
  unindexValue(doc: ValueDoc): void {
    const byColumn = this.valuesByRecord.get(doc.record);
    if (byColumn?.get(doc.column) === doc._id) byColumn.delete(doc.column);
    this.valuesByColumn.remove(doc.column, doc._id);
  }
  unindexAmendment(doc: AmendmentDoc): void {
    this.amendmentsByRecord.remove(doc.record, doc._id);
  }
  unindexAutomation(doc: AutomationDoc): void {
    if (doc.module) this.automationsByModule.remove(doc.module, doc._id);
    else this.automationsByWorkspace.remove(doc.workspace, doc._id);
  }

  // ---- live lookups ------------------------------------------------------------------------
  liveWorkspace(id: string): WorkspaceDoc | undefined {
    const d = this.workspaces.get(id);
    return d && !d.isDeleted ? d : undefined;
  }
  liveModule(id: string): ModuleDoc | undefined {
    const d = this.modules.get(id);
    return d && !d.isDeleted && this.liveWorkspace(d.workspace) ? d : undefined;
  }
  liveCollection(id: string): CollectionDoc | undefined {
    const d = this.collections.get(id);
    return d && !d.isDeleted ? d : undefined;
  }
  liveColumn(id: string): ColumnDoc | undefined {
    const d = this.columns.get(id);
    return d && !d.isDeleted ? d : undefined;
  }
  liveRecord(id: string): RecordDoc | undefined {
    const d = this.records.get(id);
    return d && !d.isDeleted ? d : undefined;
  }
  liveValue(id: string): ValueDoc | undefined {
    const d = this.values.get(id);
    return d && !d.isDeleted ? d : undefined;
  }
  valueOf(recordId: string, columnId: string): ValueDoc | undefined {
    const id = this.valuesByRecord.get(recordId)?.get(columnId);
    return id ? this.liveValue(id) : undefined;
  }
  membership(workspaceId: string, userId: string): MemberDoc | undefined {
    for (const id of this.membersByWorkspace.get(workspaceId)) {
      const m = this.members.get(id);
      if (m && !m.isDeleted && m.user === userId) return m;
    }
    return undefined;
  }
  activeMembership(workspaceId: string, userId: string): MemberDoc | undefined {
    const m = this.membership(workspaceId, userId);
    return m && m.status === 'active' ? m : undefined;
  }

  /** Collections of a module, sorted by position then creation. */
  moduleCollections(moduleId: string): CollectionDoc[] {
    return sortByPosition(pickLive(this.collections, this.collectionsByModule.get(moduleId)));
  }
  moduleColumns(moduleId: string, scope?: 'record' | 'subrecord'): ColumnDoc[] {
    const cols = pickLive(this.columns, this.columnsByModule.get(moduleId));
    return sortByPosition(scope ? cols.filter((c) => c.scope === scope) : cols);
  }
  /** Live, non-archived sub-records of a record. */
  liveSubRecords(parentId: string): RecordDoc[] {
    return pickLive(this.records, this.subRecordsByParent.get(parentId)).filter((r) => !r.isArchived);
  }
  liveAmendments(recordId: string): AmendmentDoc[] {
    return pickLive(this.amendments, this.amendmentsByRecord.get(recordId));
  }
}

export function pickLive<T extends { isDeleted: boolean }>(map: Map<string, T>, ids: Iterable<string>): T[] {
  const out: T[] = [];
  for (const id of ids) {
    const d = map.get(id);
    if (d && !d.isDeleted) out.push(d);
  }
  return out;
}

export function sortByPosition<T extends { position: unknown; createdAt: string }>(items: T[]): T[] {
  return items.sort((a, b) => {
    const pa = typeof a.position === 'number' ? a.position : 0;
    const pb = typeof b.position === 'number' ? b.position : 0;
    if (pa !== pb) return pa - pb;
    return a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0;
  });
}

/** First index whose ms is greater than `ms` (rows sorted ascending). */
export function upperBound(rows: readonly { ms: number }[], ms: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (rows[mid]!.ms <= ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index whose ms is >= `ms`. */
export function lowerBound(rows: readonly { ms: number }[], ms: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (rows[mid]!.ms < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// The activity feed: writing rows (with the observed dialect's list of what is never logged),
// retention, visibility, filters and the two paging behaviours of `before`.

import type {
  ActivityDoc,
  CollectionDoc,
  ColumnDoc,
  Json,
  ModuleDoc,
  NamedRef,
  RecordDoc,
  RevertPlan,
} from './docs.js';
import type { EmulatorState } from './state.js';
import { lowerBound } from './state.js';
import { Prng } from './ids.js';
import type { Actor } from './actor.js';

/** Every action the deployed server writes; anything else is silent in the observed dialect. */
const OBSERVED_ACTIONS: ReadonlySet<string> = new Set([
  'record_created',
  'record_updated',
  'record_moved',
  'record_deleted',
  'cell_updated',
  'collection_created',
  'collection_updated',
  'collection_deleted',
  'column_created',
  'column_updated',
  'column_deleted',
  'module_created',
  'module_updated',
  'module_deleted',
  'member_invited',
  'member_removed',
  'member_role_changed',
  'module_access_changed',
  'comment_added',
  'comment_deleted',
]);

export interface LogEntry {
  action: string;
  message: string;
  targetName: string;
  before?: Json;
  after?: Json;
  module?: ModuleDoc | null;
  collection?: CollectionDoc | null;
  record?: RecordDoc | null;
  column?: ColumnDoc | null;
  revert?: RevertPlan | null;
  /** Observed: the write is real but the deployed server does not log it. */
  silentInObserved?: boolean;
  /** Observed `*_deleted` rows carry no id of what was deleted. */
  dropIdInObserved?: 'module' | 'collection' | 'column';
}

export interface ActivityQuery {
  limit: number;
  before: number | null;
  moduleId?: string;
  recordId?: string;
  userId?: string;
  actions?: ReadonlySet<string>;
  source?: 'automation' | 'person';
  /** Module ids the viewer may see rows of; null = everything (owner/admin). */
  visibleModules: ReadonlySet<string> | null;
}

export interface ActivityPage {
  rows: ActivityDoc[];
  hasMore: boolean;
  nextCursor: string | null;
}

export class ActivityLog {
  /** Observed: ties in createdAt come back in an arbitrary order (no tie-breaker). */
  private readonly tieShuffle: Prng;
  /** Observed, inside a request: rows written but not yet inserted (see holdRows). */
  private held: ActivityDoc[] | null = null;

  constructor(private readonly state: EmulatorState) {
    this.tieShuffle = new Prng(0x7e5);
  }

  log(workspaceId: string, actor: Actor, at: string, e: LogEntry): ActivityDoc | null {
    const observed = this.state.dialect === 'observed';
    if (observed && (e.silentInObserved || !OBSERVED_ACTIONS.has(e.action))) return null;
    const ref = (d: { _id: string; name: unknown } | null | undefined): NamedRef | null =>
      d ? { _id: d._id, name: typeof d.name === 'string' ? d.name : String(d.name ?? '') } : null;
    const drop = observed ? e.dropIdInObserved : undefined;
    const doc: ActivityDoc = {
      _id: this.state.ids.id(),
      workspace: workspaceId,
      action: e.action,
      message: e.message,
      targetName: e.targetName,
      before: e.before ?? null,
      after: e.after ?? null,
      user: actor.user._id,
      module: drop === 'module' ? null : ref(e.module),
      collectionName: drop === 'collection' ? null : ref(e.collection),
      record: ref(e.record),
      column: drop === 'column' ? null : ref(e.column),
      createdAt: at,
      ms: Date.parse(at),
      automation: actor.automation ? { _id: actor.automation._id, name: actor.automation.name } : null,
      triggeredBy: actor.automation ? actor.user._id : null,
      revert: e.revert ?? null,
      revertedAt: null,
    };
    if (this.held) this.held.push(doc);
    else this.state.addActivity(doc);
    return doc;
  }

  /**
   * Observed: a request's rows are held back, then inserted by insertHeld() with a later clock
   * reading. The deployed server saves the record, touches the workspace, then the module, then
   * inserts the feed row — separate database calls, each with its own clock reading — so the row is
   * later than the module `updatedAt` the same write set, and other requests land in between.
   */
  holdRows(): void {
    if (this.state.dialect === 'observed') this.held = [];
  }

  /** The rows held since holdRows(), no longer held (none in the spec dialect). */
  takeHeld(): ActivityDoc[] {
    const rows = this.held ?? [];
    this.held = null;
    return rows;
  }

  /** Inserts held rows, each stamped now (after the module touch of its write). */
  insertHeld(rows: readonly ActivityDoc[]): void {
    for (const doc of rows) {
      doc.createdAt = this.state.clock.stamp();
      doc.ms = Date.parse(doc.createdAt);
      this.state.addActivity(doc);
    }
  }

  /** Deletes rows older than the retention window (0 = keep forever). */
  purge(workspaceId: string): void {
    const days = this.state.config.retentionDays;
    if (!(days > 0)) return;
    const rows = this.state.activityByWorkspace.get(workspaceId);
    if (!rows || rows.length === 0) return;
    const cutoff = this.state.clock.now().getTime() - days * 86_400_000;
    const n = lowerBound(rows, cutoff);
    if (n === 0) return;
    for (const row of rows.splice(0, n)) this.state.activity.delete(row._id);
  }

  page(workspaceId: string, q: ActivityQuery): ActivityPage {
    this.purge(workspaceId);
    const rows = this.state.activityByWorkspace.get(workspaceId) ?? [];
    const observed = this.state.dialect === 'observed';
    const start = (q.before === null ? rows.length : lowerBound(rows, q.before)) - 1;
    const picked: ActivityDoc[] = [];
    let i = start;
    for (; i >= 0; i--) {
      const row = rows[i]!;
      if (!this.matches(row, q)) continue;
      if (picked.length >= q.limit && row.ms !== picked[picked.length - 1]!.ms) break;
      picked.push(row);
    }
    // Stopping early means an older matching row exists. Rows beyond `limit` that share the
    // boundary millisecond were collected above.
    const brokeEarly = i >= 0;
    let page: ActivityDoc[];
    let hasMore: boolean;
    if (observed) {
      // Mongo sorts createdAt desc with no tie-breaker: tied rows land in any order, and the
      // boundary millisecond's overflow is simply cut off (a strict `before` then skips it).
      page = this.shuffleTies(picked).slice(0, q.limit);
      hasMore = brokeEarly || picked.length > q.limit;
    } else {
      // Spec: a page ends on a millisecond boundary so a strict `before` never loses rows.
      page = picked;
      hasMore = brokeEarly;
    }
    const last = page[page.length - 1];
    return { rows: page, hasMore, nextCursor: hasMore && last ? last.createdAt : null };
  }

  private matches(row: ActivityDoc, q: ActivityQuery): boolean {
    if (q.visibleModules && row.module && !q.visibleModules.has(row.module._id)) return false;
    if (q.moduleId !== undefined && row.module?._id !== q.moduleId) return false;
    if (q.recordId !== undefined && row.record?._id !== q.recordId) return false;
    if (q.userId !== undefined) {
      const shownUser = row.automation && this.state.dialect === 'observed' ? this.state.botId : row.user;
      if (shownUser !== q.userId) return false;
    }
    if (q.actions && !q.actions.has(row.action)) return false;
    if (q.source === 'automation' && !row.automation) return false;
    if (q.source === 'person' && row.automation) return false;
    return true;
  }

  private shuffleTies(rows: ActivityDoc[]): ActivityDoc[] {
    const out = rows.slice();
    let a = 0;
    while (a < out.length) {
      let b = a + 1;
      while (b < out.length && out[b]!.ms === out[a]!.ms) b++;
      for (let k = b - 1; k > a; k--) {
        const j = a + Math.floor(this.tieShuffle.next() * (k - a + 1));
        const tmp = out[k]!;
        out[k] = out[j]!;
        out[j] = tmp;
      }
      a = b;
    }
    return out;
  }
}

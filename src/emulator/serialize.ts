// Documents -> API bodies. The spec dialect shows the published fields; the observed dialect adds
// the deployed server's extras (`__v`, `createdBy`, `workspace`, `graphData`...).

import type {
  ActivityDoc,
  AmendmentDoc,
  AutomationDoc,
  CollectionDoc,
  ColumnDoc,
  MemberDoc,
  ModuleDoc,
  NotificationDoc,
  RecordDoc,
  UserDoc,
  ValueDoc,
  WorkspaceDoc,
} from './docs.js';
import type { EmulatorState } from './state.js';

type Obj = Record<string, unknown>;

export class Serializer {
  constructor(private readonly state: EmulatorState) {}

  private get observed(): boolean {
    return this.state.dialect === 'observed';
  }

  userSummary(id: string | null, withPresence = true): Obj | null {
    if (!id) return null;
    const u = this.state.users.get(id);
    if (!u) return null;
    const out: Obj = { _id: u._id, firstName: u.firstName, lastName: u.lastName, email: u.email };
    if (withPresence) out.presence = u.presence;
    return out;
  }

  workspace(w: WorkspaceDoc): Obj {
    const out: Obj = {
      _id: w._id,
      name: w.name,
      slug: w.slug,
      description: w.description,
      icon: w.icon,
      banner: w.banner,
      createdAt: w.createdAt,
      updatedAt: w.updatedAt,
      totalModules: countLive(this.state.modules, this.state.modulesByWorkspace.get(w._id)),
    };
    if (this.observed) Object.assign(out, { owner: w.createdBy, createdBy: w.createdBy, __v: 0 });
    return out;
  }

  member(m: MemberDoc): Obj {
    const out: Obj = {
      _id: m._id,
      role: m.role,
      status: this.observed ? 'active' : m.status,
      joinedAt: m.joinedAt,
      user: this.userSummary(m.user),
    };
    if (this.observed) Object.assign(out, { workspace: m.workspace, invitedBy: m.invitedBy, __v: 0 });
    return out;
  }

  module(m: ModuleDoc, withStats: boolean): Obj {
    const out: Obj = {
      _id: m._id,
      name: m.name,
      description: m.description,
      icon: m.icon,
      color: m.color,
      visibility: m.visibility,
      tags: m.tags.map((t) => ({ ...t })),
      createdAt: m.createdAt,
      updatedAt: m.updatedAt,
    };
    if (withStats) Object.assign(out, this.moduleStats(m._id));
    if (this.observed) Object.assign(out, { workspace: m.workspace, createdBy: m.createdBy, graphData: null, __v: 0 });
    return out;
  }

  moduleStats(moduleId: string): { totalRecords: number; completedRecords: number; performance: number } {
    let total = 0;
    let completed = 0;
    for (const id of this.state.recordsByModule.get(moduleId)) {
      const r = this.state.records.get(id);
      if (!r || r.isDeleted || r.isArchived || r.parentRecord) continue;
      total += 1;
      if (r.isCompleted) completed += 1;
    }
    return { totalRecords: total, completedRecords: completed, performance: total ? Math.round((completed / total) * 100) : 0 };
  }

  collection(c: CollectionDoc): Obj {
    const out: Obj = { _id: c._id, name: c.name, color: c.color, position: c.position, isCollapsed: c.isCollapsed };
    if (this.observed) {
      Object.assign(out, {
        module: c.module,
        workspace: c.workspace,
        createdBy: c.createdBy,
        createdAt: c.createdAt,
        updatedAt: c.updatedAt,
        __v: 0,
      });
    }
    return out;
  }

  column(c: ColumnDoc): Obj {
    const out: Obj = {
      _id: c._id,
      name: c.name,
      type: c.type,
      position: c.position,
      width: c.width,
      isRequired: c.isRequired,
      isHidden: c.isHidden,
      statusOptions: c.statusOptions.map((o) => ({ ...o })),
      settings: structuredClone(c.settings),
    };
    if (this.observed) {
      Object.assign(out, {
        module: c.module,
        workspace: c.workspace,
        scope: c.scope,
        createdBy: c.createdBy,
        createdAt: c.createdAt,
        updatedAt: c.updatedAt,
        __v: 0,
      });
    }
    return out;
  }

  record(r: RecordDoc): Obj {
    const out: Obj = {
      _id: r._id,
      name: r.name,
      position: r.position,
      collectionName: r.collectionName,
      parentRecord: r.parentRecord,
      subRecordCount: this.state.liveSubRecords(r._id).length,
      amendmentCount: this.state.liveAmendments(r._id).filter((a) => !a.isDeleted).length,
      module: r.module,
      workspace: r.workspace,
      isCompleted: r.isCompleted,
      isArchived: r.isArchived,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
    };
    if (this.observed) Object.assign(out, { createdBy: r.createdBy, __v: 0 });
    return out;
  }

  value(v: ValueDoc): Obj {
    const col = this.state.liveColumn(v.column);
    const out: Obj = {
      _id: v._id,
      record: v.record,
      column: col ? this.column(col) : null,
      value: v.value,
      createdAt: v.createdAt,
      updatedAt: v.updatedAt,
    };
    if (this.observed) {
      Object.assign(out, {
        module: v.module,
        workspace: v.workspace,
        collectionName: v.collectionName,
        createdBy: v.createdBy,
        __v: 0,
      });
    }
    return out;
  }

  amendment(a: AmendmentDoc): Obj {
    const tomb = a.isDeleted;
    const out: Obj = {
      _id: a._id,
      record: a.record,
      module: a.module,
      workspace: a.workspace,
      user: tomb ? null : this.userSummary(a.user),
      message: tomb ? '' : a.message,
      parentComment: a.parentComment,
      edited: a.edited,
      isDeleted: a.isDeleted,
      createdAt: a.createdAt,
    };
    if (this.observed) Object.assign(out, { updatedAt: a.updatedAt, __v: 0 });
    return out;
  }

  automation(a: AutomationDoc): Obj {
    const out: Obj = {
      _id: a._id,
      workspace: a.workspace,
      module: a.module,
      scope: a.scope,
      name: a.name,
      trigger: structuredClone(a.trigger),
      conditions: structuredClone(a.conditions),
      match: a.match,
      actions: structuredClone(a.actions),
      isActive: a.isActive,
      runCount: a.runCount,
      lastRunAt: a.lastRunAt,
      lastError: a.lastError,
      createdAt: a.createdAt,
    };
    if (this.observed) Object.assign(out, { createdBy: a.createdBy, updatedAt: a.updatedAt, __v: 0 });
    return out;
  }

  activity(a: ActivityDoc, canRevert: boolean, revertBlocker: string | null): Obj {
    const byEngine = a.automation !== null;
    const userId = byEngine && this.observed ? this.state.botId : a.user;
    const out: Obj = {
      _id: a._id,
      action: a.action,
      message: a.message,
      targetName: a.targetName,
      before: cut(a.before, this.observed),
      after: cut(a.after, this.observed),
      user: this.userSummary(userId, false),
      ...(this.observed ? this.populatedRefs(a) : {
        module: a.module ? { ...a.module } : null,
        collectionName: a.collectionName ? { ...a.collectionName } : null,
        record: a.record ? { ...a.record } : null,
        column: a.column ? { ...a.column } : null,
      }),
      createdAt: a.createdAt,
      automation: a.automation ? { ...a.automation } : null,
      triggeredBy: this.userSummary(a.triggeredBy, false),
      canRevert,
      revertBlocker,
      revertedAt: a.revertedAt,
    };
    if (this.observed && byEngine) {
      Object.assign(out, { workspace: a.workspace, metadata: { source: 'automation' }, updatedAt: a.createdAt, __v: 0 });
    }
    return out;
  }

  /**
   * Observed: the deployed service populates a row's references when the feed is read, so they
   * carry today's names, and a module, collection or column deleted since reads as null (records
   * are never removed there, only archived).
   */
  private populatedRefs(a: ActivityDoc): Obj {
    const live = <T extends { isDeleted: boolean }>(doc: T | undefined): T | undefined => (doc && !doc.isDeleted ? doc : undefined);
    const name = (v: unknown): string => (typeof v === 'string' ? v : String(v ?? ''));
    const mod = a.module ? live(this.state.modules.get(a.module._id)) : undefined;
    const col = a.collectionName ? live(this.state.collections.get(a.collectionName._id)) : undefined;
    const rec = a.record ? this.state.records.get(a.record._id) : undefined;
    const column = a.column ? live(this.state.columns.get(a.column._id)) : undefined;
    return {
      module: mod ? { _id: mod._id, name: name(mod.name) } : null,
      collectionName: col ? { _id: col._id, name: name(col.name), color: col.color ?? null } : null,
      record: rec && !rec.isDeleted ? { _id: rec._id, name: name(rec.name) } : null,
      column: column ? { _id: column._id, name: name(column.name), type: column.type } : null,
    };
  }

  notification(n: NotificationDoc): Obj {
    return {
      _id: n._id,
      user: n.user,
      workspace: n.workspace,
      module: n.module,
      record: n.record,
      type: n.type,
      title: n.title,
      message: n.message,
      isRead: n.isRead,
      readAt: n.readAt,
      createdAt: n.createdAt,
      updatedAt: n.updatedAt,
    };
  }

  /** For dump(): every document as plain JSON. */
  static plain(doc: object): Record<string, unknown> {
    return JSON.parse(JSON.stringify(doc)) as Record<string, unknown>;
  }
}

function countLive(map: Map<string, { isDeleted: boolean }>, ids: Iterable<string>): number {
  let n = 0;
  for (const id of ids) if (map.get(id)?.isDeleted === false) n += 1;
  return n;
}

/** The observed server cuts before/after strings over 500 chars. */
function cut(value: unknown, observed: boolean): unknown {
  if (observed && typeof value === 'string' && value.length > 500) return value.slice(0, 500);
  return value;
}

export type { UserDoc };

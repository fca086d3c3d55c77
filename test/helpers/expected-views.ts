// What the reporting views must hold after a full sync, computed from the emulator's own state
// (its dump), so the comparison is value by value against the source of truth, not the client.

import type { LooseDump } from './harness.js';

type Doc = Record<string, any>;

const json = (v: unknown): string | null => (v === undefined || v === null ? null : typeof v === 'string' ? v : JSON.stringify(v));
const bool = (v: unknown): number => (v ? 1 : 0);

export interface ExpectedViews {
  workspaces: Doc[];
  members: Doc[];
  modules: Doc[];
  collections: Doc[];
  columns: Doc[];
  records: Doc[];
  cells: Doc[];
  amendments: Doc[];
  automations: Doc[];
  activity: Doc[];
}

/**
 * @param ownerId the key's user (owner of the seeded workspaces: sees every module and row)
 * @param retentionStart ISO time before which activity rows have expired (null: none)
 */
export function expectedViews(d: LooseDump, ownerId: string, dialect: 'spec' | 'observed'): ExpectedViews {
  const liveWs = d.workspaces.filter((w) => !w.isDeleted && d.members.some((m) => m.workspace === w._id && m.user === ownerId && !m.isDeleted));
  const wsIds = new Set(liveWs.map((w) => w._id));
  const mods = d.modules.filter((m) => !m.isDeleted && wsIds.has(m.workspace));
  const modIds = new Set(mods.map((m) => m._id));
  const cols = d.collections.filter((c) => !c.isDeleted && modIds.has(c.module));
  const colIds = new Set(cols.map((c) => c._id));
  const columns = d.columns.filter((c) => !c.isDeleted && modIds.has(c.module));
  const columnIds = new Set(columns.map((c) => c._id));
  const top = d.records.filter((r) => !r.isDeleted && !r.isArchived && !r.parentRecord && colIds.has(r.collectionName) && modIds.has(r.module));
  // Archived top-level rows the feed names are read by id (a full pass backfills them from the feed).
  const named = new Set(d.activity.filter((a) => wsIds.has(a.workspace)).map((a) => a.record?._id).filter(Boolean));
  const archived = d.records.filter((r) => !r.isDeleted && r.isArchived && !r.parentRecord && colIds.has(r.collectionName) && modIds.has(r.module) && named.has(r._id));
  const topIds = new Set([...top, ...archived].map((r) => r._id));
  const subs = d.records.filter((r) => !r.isDeleted && !r.isArchived && r.parentRecord && topIds.has(r.parentRecord));
  const recs = [...top, ...subs];
  const recIds = new Set([...recs, ...archived].map((r) => r._id));
  const users = new Map(d.users.map((u) => [u._id, u]));

  const values = d.values.filter((v) => !v.isDeleted && recIds.has(v.record) && (dialect === 'observed' || columnIds.has(v.column)));
  const notes = d.amendments.filter((a) => {
    if (!recIds.has(a.record)) return false;
    if (!a.isDeleted) return true;
    return d.amendments.some((r) => r.parentComment === a._id && !r.isDeleted);
  });

  return {
    workspaces: liveWs.map((w) => ({
      id: w._id, name: w.name, slug: w.slug, description: w.description, icon: w.icon, banner: w.banner, created_at: w.createdAt, updated_at: w.updatedAt,
    })),
    members: d.members
      .filter((m) => !m.isDeleted && wsIds.has(m.workspace))
      .map((m) => {
        const u = users.get(m.user)!;
        return {
          workspace_id: m.workspace, user_id: m.user, membership_id: m._id, role: m.role, status: m.status,
          first_name: u.firstName, last_name: u.lastName, email: u.email, joined_at: m.joinedAt,
        };
      }),
    modules: mods.map((m) => ({
      id: m._id, workspace_id: m.workspace, name: m.name, description: m.description, icon: m.icon, color: m.color,
      visibility: m.visibility, tags: JSON.parse(json(m.tags) ?? '[]'), created_at: m.createdAt, updated_at: m.updatedAt,
    })),
    collections: cols.map((c) => ({ id: c._id, module_id: c.module, name: c.name, color: c.color, position: c.position, is_collapsed: bool(c.isCollapsed) })),
    columns: columns.map((c) => ({
      id: c._id, module_id: c.module, scope: c.scope, name: c.name, type: c.type, position: c.position, width: c.width,
      is_required: bool(c.isRequired), is_hidden: bool(c.isHidden),
    })),
    records: [
      ...recs.map((r) => ({
        id: r._id, workspace_id: r.workspace, module_id: r.module, collection_id: r.collectionName, parent_record_id: r.parentRecord ?? null,
        name: r.name, position: r.position, is_completed: bool(r.isCompleted), is_archived: 0, created_at: r.createdAt, updated_at: r.updatedAt,
      })),
      // what the feed says of them: the service has no route that lists or returns an archived row
      ...archived.map((r) => ({
        id: r._id, workspace_id: r.workspace, module_id: r.module, collection_id: r.collectionName, parent_record_id: null,
        name: r.name, is_archived: 1, created_at: r.createdAt,
      })),
    ],
    cells: values.map((v) => ({
      id: v._id, record_id: v.record, column_id: columnIds.has(v.column) ? v.column : null, value: json(v.value), created_at: v.createdAt, updated_at: v.updatedAt,
    })),
    amendments: notes.map((a) => ({
      id: a._id, record_id: a.record, module_id: a.module, workspace_id: a.workspace, parent_id: a.parentComment ?? null,
      is_deleted: bool(a.isDeleted), created_at: a.createdAt,
      ...(a.isDeleted ? {} : { message: a.message, user_id: a.user, edited: bool(a.edited) }),
    })),
    automations: d.automations
      .filter((a) => !a.isDeleted && wsIds.has(a.workspace) && (a.module === null || modIds.has(a.module)))
      .map((a) => ({
        id: a._id, workspace_id: a.workspace, module_id: a.module ?? null, scope: a.scope, name: a.name, match: a.match,
        is_active: bool(a.isActive), run_count: a.runCount, last_run_at: a.lastRunAt ?? null, created_at: a.createdAt,
        trigger: a.trigger, conditions: a.conditions, actions: a.actions,
      })),
    activity: d.activity
      .filter((r) => wsIds.has(r.workspace))
      .map((r) => ({
        id: r._id, workspace_id: r.workspace, action: r.action, message: r.message, target_name: r.targetName,
        module_id: r.module?._id ?? null, collection_id: r.collectionName?._id ?? null, record_id: r.record?._id ?? null,
        column_id: r.column?._id ?? null, automation_id: r.automation?._id ?? null, created_at: r.createdAt,
      })),
  };
}

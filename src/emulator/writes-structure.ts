// Workspace-level writes: workspaces, members, modules and module grants, with the dialects'
// delete semantics (spec cascades; observed removes only the document itself).

import type { Json, MemberDoc, ModuleDoc, Role, TagDoc, UserDoc, WorkspaceDoc } from './docs.js';
import { notify } from './notify.js';
import { purgeRecord } from './writes-records.js';
import { touchModule, touchWorkspace } from './touch.js';
import type { World } from './world.js';
import type { Actor } from './actor.js';

export function slugify(name: string, id: string): string {
  const base = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return `${base || 'workspace'}-${id.slice(-6)}`;
}

export function createWorkspace(w: World, actor: Actor, name: string, icon: string | undefined): WorkspaceDoc {
  const at = w.state.clock.stamp();
  const id = w.state.ids.id();
  const ws: WorkspaceDoc = {
    _id: id,
    name,
    slug: slugify(name, id),
    description: '',
    icon: icon ?? 'briefcase',
    banner: '',
    createdBy: actor.user._id,
    createdAt: at,
    updatedAt: at,
    isDeleted: false,
    deletedAt: null,
  };
  w.state.addWorkspace(ws);
  addMembership(w, ws._id, actor.user, 'owner', 'active', null, at);
  w.activity.log(ws._id, actor, at, { action: 'workspace_created', message: `created workspace "${name}"`, targetName: name });
  return ws;
}

export function addMembership(
  w: World,
  workspaceId: string,
  user: UserDoc,
  role: Role,
  status: 'active' | 'pending',
  invitedBy: string | null,
  at: string,
): MemberDoc {
  const m: MemberDoc = {
    _id: w.state.ids.id(),
    workspace: workspaceId,
    user: user._id,
    role,
    status,
    joinedAt: at,
    invitedBy,
    isDeleted: false,
    deletedAt: null,
  };
  w.state.addMember(m);
  return m;
}

export function inviteMember(w: World, actor: Actor, ws: WorkspaceDoc, user: UserDoc, role: Role, byEmail: boolean): MemberDoc {
  const at = w.state.clock.stamp();
  // Spec: an email invite waits for accept/decline; the deployed server has members always active.
  const status = byEmail && !w.rules.observed ? 'pending' : 'active';
  const m = addMembership(w, ws._id, user, role, status, actor.user._id, at);
  touchWorkspace(w, actor, ws._id, at);
  w.activity.log(ws._id, actor, at, {
    action: 'member_invited',
    message: `${byEmail ? 'invited' : 'added'} ${user.email} as ${role}`,
    targetName: user.email,
    after: role,
  });
  notify(w, at, {
    user: user._id,
    type: 'invite',
    title: 'Workspace invitation',
    message: `${actor.user.firstName} invited you to "${ws.name}"`,
    workspace: ws._id,
    module: null,
    record: null,
  });
  return m;
}

export function changeRole(w: World, actor: Actor, m: MemberDoc, role: Role): void {
  const at = w.state.clock.stamp();
  const before = m.role;
  m.role = role;
  const u = w.state.users.get(m.user);
  touchWorkspace(w, actor, m.workspace, at);
  w.activity.log(m.workspace, actor, at, {
    action: 'member_role_changed',
    message: `changed ${u?.email ?? m.user} from ${before} to ${role}`,
    targetName: u?.email ?? m.user,
    before,
    after: role,
  });
}

export function removeMember(w: World, actor: Actor, m: MemberDoc, action = 'member_removed'): void {
  const at = w.state.clock.stamp();
  w.state.markDeleted(m, at);
  w.state.membersByWorkspace.remove(m.workspace, m._id);
  for (const id of [...w.state.grantsByWorkspace.get(m.workspace)]) {
    const g = w.state.grants.get(id);
    if (g && g.user === m.user) w.state.removeGrant(g);
  }
  const u = w.state.users.get(m.user);
  touchWorkspace(w, actor, m.workspace, at);
  w.activity.log(m.workspace, actor, at, {
    action,
    message: `${action === 'member_declined' ? 'declined the invitation:' : 'removed'} ${u?.email ?? m.user}`,
    targetName: u?.email ?? m.user,
    before: m.role,
  });
}

export function deleteWorkspace(w: World, actor: Actor, ws: WorkspaceDoc): void {
  const at = w.state.clock.stamp();
  if (!w.rules.observed) {
    for (const id of [...w.state.modulesByWorkspace.get(ws._id)]) {
      const mod = w.state.modules.get(id);
      if (mod && !mod.isDeleted) cascadeModule(w, mod, at);
    }
    for (const id of [...w.state.membersByWorkspace.get(ws._id)]) {
      const m = w.state.members.get(id);
      if (m && !m.isDeleted) w.state.markDeleted(m, at);
    }
  }
  w.state.markDeleted(ws, at);
  void actor;
}

// ---- modules -------------------------------------------------------------------------------

export const DEFAULT_MODULE = { icon: '📋', color: '#3B82F6', visibility: 'workspace' as const };
const HEX_COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

/** The deployed server's tag cleaning: trimmed, ≤24 chars, de-duplicated, ≤12, bad colours grey. */
export function cleanTags(raw: Json[]): TagDoc[] {
  const out: TagDoc[] = [];
  const seen = new Set<string>();
  for (const t of raw) {
    if (!t || typeof t !== 'object' || Array.isArray(t)) continue;
    const label = typeof t.label === 'string' ? t.label.trim().slice(0, 24) : '';
    if (!label || seen.has(label.toLowerCase())) continue;
    seen.add(label.toLowerCase());
    const color = typeof t.color === 'string' && HEX_COLOR.test(t.color) ? t.color : '#94A3B8';
    out.push({ label, color });
    if (out.length >= 12) break;
  }
  return out;
}

export interface ModuleInput {
  name: string;
  description?: string;
  icon?: string;
  color?: string;
  visibility?: ModuleDoc['visibility'];
  tags?: TagDoc[];
}

export function createModule(w: World, actor: Actor, ws: WorkspaceDoc, input: ModuleInput): ModuleDoc {
  const at = w.state.clock.stamp();
  const mod: ModuleDoc = {
    _id: w.state.ids.id(),
    workspace: ws._id,
    name: input.name,
    description: input.description ?? '',
    icon: input.icon ?? DEFAULT_MODULE.icon,
    color: input.color ?? DEFAULT_MODULE.color,
    visibility: input.visibility ?? DEFAULT_MODULE.visibility,
    tags: input.tags ?? [],
    createdBy: actor.user._id,
    createdAt: at,
    updatedAt: at,
    isDeleted: false,
    deletedAt: null,
  };
  w.state.addModule(mod);
  touchWorkspace(w, actor, ws._id, at);
  w.activity.log(ws._id, actor, at, {
    action: 'module_created',
    message: `created board "${mod.name}"`,
    targetName: mod.name,
    module: mod,
  });
  return mod;
}

export function updateModule(w: World, actor: Actor, mod: ModuleDoc, patch: Partial<ModuleInput>): void {
  const at = w.state.clock.stamp();
  const before = { name: mod.name, visibility: mod.visibility };
  if (patch.name !== undefined) mod.name = patch.name;
  if (patch.description !== undefined) mod.description = patch.description;
  if (patch.icon !== undefined) mod.icon = patch.icon;
  if (patch.color !== undefined) mod.color = patch.color;
  if (patch.visibility !== undefined) mod.visibility = patch.visibility;
  if (patch.tags !== undefined) mod.tags = patch.tags;
  mod.updatedAt = at;
  touchModule(w, actor, mod, at);
  w.activity.log(mod.workspace, actor, at, {
    action: 'module_updated',
    message: `updated board "${mod.name}"`,
    targetName: mod.name,
    before,
    after: { name: mod.name, visibility: mod.visibility },
    module: mod,
  });
}

export function deleteModule(w: World, actor: Actor, mod: ModuleDoc): void {
  const at = w.state.clock.stamp();
  if (w.rules.observed) {
    w.state.markDeleted(mod, at);
    w.state.unindexModule(mod);
  } else {
    cascadeModule(w, mod, at);
  }
  touchWorkspace(w, actor, mod.workspace, at);
  w.activity.log(mod.workspace, actor, at, {
    action: 'module_deleted',
    message: `deleted board "${mod.name}"`,
    targetName: mod.name,
    before: mod.name,
    module: mod,
    dropIdInObserved: 'module',
  });
}

function cascadeModule(w: World, mod: ModuleDoc, at: string): void {
  const s = w.state;
  for (const id of [...s.recordsByModule.get(mod._id)]) {
    const r = s.records.get(id);
    if (r && !r.isDeleted) purgeRecord(w, r, at);
  }
  for (const c of s.moduleCollections(mod._id)) {
    s.markDeleted(c, at);
    s.unindexCollection(c);
  }
  for (const c of s.moduleColumns(mod._id)) {
    s.markDeleted(c, at);
    s.unindexColumn(c);
  }
  for (const id of [...s.automationsByModule.get(mod._id)]) {
    const a = s.automations.get(id);
    if (a) {
      s.markDeleted(a, at);
      s.unindexAutomation(a);
    }
  }
  for (const id of [...s.grantsByWorkspace.get(mod.workspace)]) {
    const g = s.grants.get(id);
    if (g && g.module === mod._id) s.removeGrant(g);
  }
  s.markDeleted(mod, at);
  s.unindexModule(mod);
}

// ---- module access -------------------------------------------------------------------------

export function setGrants(w: World, actor: Actor, ws: WorkspaceDoc, user: UserDoc, moduleIds: string[]): string[] {
  const at = w.state.clock.stamp();
  const valid = [...new Set(moduleIds)].filter((id) => w.state.liveModule(id)?.workspace === ws._id);
  for (const id of [...w.state.grantsByWorkspace.get(ws._id)]) {
    const g = w.state.grants.get(id);
    if (g && g.user === user._id) w.state.removeGrant(g);
  }
  for (const module of valid) {
    w.state.addGrant({ _id: w.state.ids.id(), workspace: ws._id, user: user._id, module, createdAt: at });
  }
  touchWorkspace(w, actor, ws._id, at);
  w.activity.log(ws._id, actor, at, {
    action: 'module_access_changed',
    message: `set board access of ${user.email} to ${valid.length} board(s)`,
    targetName: user.email,
    after: valid,
  });
  return valid;
}

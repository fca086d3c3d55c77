// Who is calling and what they may open: authentication (x-api-key / Authorization), workspace
// membership, roles and private-module grants, with the dialect's status codes and messages.

import type { IncomingHttpHeaders } from 'node:http';
import type { DialectRules, Kind } from './dialect.js';
import type { MemberDoc, ModuleDoc, Role, UserDoc } from './docs.js';
import { fail } from './http-reply.js';
import type { EmulatorState } from './state.js';

/**
 * Authorization wins when present, with no fallback to x-api-key (the deployed server's rule; the
 * spec says a call carries one credential). Its token may be the user's session token or the
 * user's PIT. Spec wants the word "Bearer"; observed accepts any scheme word.
 */
export function authenticate(state: EmulatorState, headers: IncomingHttpHeaders, rules: DialectRules): UserDoc {
  const authz = headers.authorization;
  if (typeof authz === 'string' && authz.trim() !== '') {
    const [scheme, token, ...rest] = authz.trim().split(/\s+/);
    const schemeOk = rules.observed || (scheme ?? '').toLowerCase() === 'bearer';
    const id = token && rest.length === 0 ? state.userBySession.get(token) ?? state.userByKey.get(token) : undefined;
    const user = schemeOk && id ? state.users.get(id) : undefined;
    if (!user) throw fail(401, 'Invalid token');
    return user;
  }
  const key = headers['x-api-key'];
  if (typeof key === 'string' && key !== '') {
    const id = state.userByKey.get(key);
    const user = id ? state.users.get(id) : undefined;
    if (!user) throw fail(401, 'Invalid API key');
    return user;
  }
  throw fail(401, 'No token or API key provided');
}

export class Access {
  constructor(
    private readonly state: EmulatorState,
    private readonly rules: DialectRules,
  ) {}

  role(workspaceId: string, userId: string): Role | undefined {
    return this.state.activeMembership(workspaceId, userId)?.role;
  }

  isManager(workspaceId: string, userId: string): boolean {
    const role = this.role(workspaceId, userId);
    return role === 'owner' || role === 'admin';
  }

  hasGrant(workspaceId: string, userId: string, moduleId: string): boolean {
    for (const id of this.state.grantsByWorkspace.get(workspaceId)) {
      const g = this.state.grants.get(id);
      if (g && g.user === userId && g.module === moduleId) return true;
    }
    return false;
  }

  /** owner/admin: all; member: workspace/public, private with a grant or as creator; guest: grants. */
  canOpen(mod: ModuleDoc, userId: string): boolean {
    const role = this.role(mod.workspace, userId);
    if (!role) return false;
    if (role === 'owner' || role === 'admin') return true;
    if (mod.createdBy === userId) return true;
    if (role === 'member' && mod.visibility !== 'private') return true;
    return this.hasGrant(mod.workspace, userId, mod._id);
  }

  /** Whether the role alone opens the module (module access's `openToRole`). */
  openToRole(mod: ModuleDoc, role: Role | undefined): boolean {
    if (role === 'owner' || role === 'admin') return true;
    return role === 'member' && mod.visibility !== 'private';
  }

  requireMember(workspaceId: string, user: UserDoc): MemberDoc {
    const m = this.state.activeMembership(workspaceId, user._id);
    if (!m) throw this.rules.forbiddenWorkspace();
    return m;
  }

  requireManager(workspaceId: string, user: UserDoc, message: string): MemberDoc {
    const m = this.requireMember(workspaceId, user);
    if (m.role !== 'owner' && m.role !== 'admin') throw this.rules.forbidden(message);
    return m;
  }

  /** A module named in the path, checked for membership and access. */
  module(moduleId: string, user: UserDoc): ModuleDoc {
    const mod = this.state.liveModule(moduleId);
    if (!mod) throw this.rules.notFound('module', moduleId);
    this.requireOpen(mod, user);
    return mod;
  }

  /** The module a child document lives in; the child itself was already found. */
  moduleOf(moduleId: string, user: UserDoc): ModuleDoc {
    const mod = this.state.liveModule(moduleId);
    if (!mod) throw this.rules.boardGone();
    this.requireOpen(mod, user);
    return mod;
  }

  requireOpen(mod: ModuleDoc, user: UserDoc): void {
    this.requireMember(mod.workspace, user);
    if (!this.canOpen(mod, user._id)) throw this.rules.forbiddenModule();
  }

  /** Looks up a child by path id; unknown or deleted -> the dialect's not-found answer. */
  child<T extends { isDeleted: boolean; module: string }>(
    map: Map<string, T>,
    kind: Kind,
    id: string,
    user: UserDoc,
  ): { doc: T; mod: ModuleDoc } {
    const doc = map.get(id);
    if (!doc || doc.isDeleted) throw this.rules.notFound(kind, id);
    if (this.rules.observed || this.state.liveModule(doc.module)) return { doc, mod: this.moduleOf(doc.module, user) };
    throw this.rules.notFound(kind, id);
  }
}

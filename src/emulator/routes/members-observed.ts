// The deployed service's member writes (observed dialect), read from its source and checked against
// a rebuilt copy (docs/real-backend.md): add takes email before userId and never invents an account;
// the role goes to the database unchecked (an enum 500); role changes are owner/admin only with the
// last-owner and ownership rules; removal checks nothing.

import { Body } from '../body.js';
import type { MemberDoc, Role, UserDoc } from '../docs.js';
import { fail } from '../http-reply.js';
import { isObjectId } from '../ids.js';
import type { RouteCtx } from '../router.js';
import { changeRole, inviteMember } from '../writes-structure.js';
import type { World } from '../world.js';
import { personActor } from '../actor.js';
import { ok } from './helpers.js';
import { findWorkspace } from './workspaces.js';

const ROLES: readonly Role[] = ['guest', 'member', 'admin', 'owner'];

function activeMembership(w: World, workspaceId: string, userId: string): MemberDoc | undefined {
  const m = w.state.membership(workspaceId, userId);
  return m && m.status === 'active' ? m : undefined;
}

function ownerCount(w: World, workspaceId: string): number {
  let n = 0;
  for (const id of w.state.membersByWorkspace.get(workspaceId)) {
    const m = w.state.members.get(id);
    if (m && !m.isDeleted && m.status === 'active' && m.role === 'owner') n += 1;
  }
  return n;
}

/** `mongoose.Types.ObjectId.isValid`: 24 hex digits, 12-byte strings, and numbers. */
function mongooseValidId(value: unknown): boolean {
  return typeof value === 'number' || isObjectId(value) || (typeof value === 'string' && value.length === 12);
}

export function addMemberObserved({ w, user, params, body }: RouteCtx) {
  if (!isObjectId(params.workspaceId)) throw fail(400, 'Invalid workspace ID format');
  const ws = findWorkspace(w, params.workspaceId!, user, 'none');
  const b = (body ?? {}) as Record<string, unknown>;
  const byEmail = (value: unknown): UserDoc | undefined => {
    const id = w.state.userByEmail.get(String(value).trim().toLowerCase());
    return id ? w.state.users.get(id) : undefined;
  };
  let target: UserDoc | undefined;
  if (b.email) target = byEmail(b.email);
  else if (b.userId) target = mongooseValidId(b.userId) ? w.state.users.get(String(b.userId)) : byEmail(b.userId);
  else throw fail(400, 'User email or ID is required');
  if (!target || target.isBot) throw fail(404, 'User not found');
  if (w.state.membership(ws._id, target._id)) throw fail(400, 'User already member');
  const role = b.role || 'member';
  if (typeof role !== 'string' || !ROLES.includes(role as Role)) {
    throw w.rules.badEnum('member', 'role', role);
  }
  const m = inviteMember(w, personActor(user), ws, target, role as Role, false);
  return ok(w.rules.wrap('member', w.ser.member(m), 'Member added successfully'), 201);
}

export function changeRoleObserved({ w, user, params, body }: RouteCtx) {
  if (!isObjectId(params.workspaceId)) throw fail(400, 'Invalid workspace ID format');
  const role = new Body(body, w.rules, 'member').raw('role');
  if (typeof role !== 'string' || !ROLES.includes(role as Role)) throw fail(400, `Role must be one of: ${ROLES.join(', ')}`);
  const actor = activeMembership(w, params.workspaceId!, user._id);
  if (!actor || (actor.role !== 'owner' && actor.role !== 'admin')) throw fail(403, 'Only an owner or admin can change roles');
  const m = w.state.membership(params.workspaceId!, params.userId!);
  if (!m) throw fail(404, 'Member not found in this workspace');
  if (m.role === role) return ok({ message: 'Role unchanged', member: w.ser.member(m) });
  if ((role === 'owner' || m.role === 'owner') && actor.role !== 'owner') throw fail(403, 'Only an owner can grant or remove ownership');
  if (m.role === 'owner' && ownerCount(w, m.workspace) <= 1) throw fail(400, 'This is the last owner — promote someone else first');
  changeRole(w, personActor(user), m, role as Role);
  return ok({ message: 'Role updated', member: w.ser.member(m) });
}

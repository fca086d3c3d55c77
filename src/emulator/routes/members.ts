// Workspace member routes. Spec: owner/admin rules, pending email invites with accept/decline,
// last-owner protection. Observed (members-observed.ts): the deployed service's own rules, members
// always active, no accept/decline.

import { Body } from '../body.js';
import type { MemberDoc, Role, UserDoc } from '../docs.js';
import { fail } from '../http-reply.js';
import type { RouteDef } from '../router.js';
import { changeRole, inviteMember, removeMember } from '../writes-structure.js';
import type { World } from '../world.js';
import { personActor } from '../actor.js';
import { listReply, ok } from './helpers.js';
import { findWorkspace } from './workspaces.js';
import { addMemberObserved, changeRoleObserved } from './members-observed.js';

const ADDABLE: readonly Role[] = ['admin', 'member', 'guest'];
const ROLES: readonly Role[] = ['owner', 'admin', 'member', 'guest'];

function ownerCount(w: World, workspaceId: string): number {
  let n = 0;
  for (const id of w.state.membersByWorkspace.get(workspaceId)) {
    const m = w.state.members.get(id);
    if (m && !m.isDeleted && m.status === 'active' && m.role === 'owner') n += 1;
  }
  return n;
}

function findMember(w: World, workspaceId: string, userId: string): MemberDoc {
  const m = w.state.membership(workspaceId, userId);
  if (!m) throw w.rules.notFound('member');
  return m;
}

/** Creates a placeholder account for an email nobody has used yet (an invite to a newcomer). */
function userForEmail(w: World, email: string): UserDoc {
  const existing = w.state.userByEmail.get(email.toLowerCase());
  if (existing) return w.state.users.get(existing)!;
  const local = email.split('@')[0] ?? email;
  const user: UserDoc = {
    _id: w.state.ids.id(),
    firstName: local,
    lastName: '',
    email,
    presence: 'offline',
    apiKey: null,
    apiKeyGeneratedAt: null,
    sessionToken: w.state.ids.sessionToken(),
    isBot: false,
    createdAt: w.state.clock.now().toISOString(),
  };
  w.state.addUser(user);
  return user;
}

function pendingInvite(w: World, workspaceId: string, user: UserDoc): MemberDoc {
  const ws = w.state.liveWorkspace(workspaceId);
  if (!ws) throw w.rules.notFound('workspace', workspaceId);
  const m = w.state.membership(workspaceId, user._id);
  if (!m || m.status !== 'pending') throw fail(404, 'No pending invitation for this workspace');
  return m;
}

export const memberRoutes: RouteDef[] = [
  {
    method: 'GET',
    template: '/workspace-members/{workspaceId}',
    handler: ({ w, user, params, query }) => {
      const ws = findWorkspace(w, params.workspaceId!, user, 'member');
      const rows = [];
      for (const id of w.state.membersByWorkspace.get(ws._id)) {
        const m = w.state.members.get(id);
        if (m && !m.isDeleted) rows.push(w.ser.member(m));
      }
      return listReply(w, 'members', rows, query);
    },
  },
  {
    method: 'POST',
    template: '/workspace-members/{workspaceId}',
    handler: (ctx) => {
      if (ctx.w.rules.observed) return addMemberObserved(ctx);
      const { w, user, params, body } = ctx;
      const ws = findWorkspace(w, params.workspaceId!, user, 'manager');
      const b = new Body(body, w.rules, 'member');
      const email = b.optionalString('email');
      const userId = b.optionalString('userId');
      const role = b.raw('role');
      if (typeof role !== 'string' || !ADDABLE.includes(role as Role)) {
        throw fail(400, 'Role must be one of admin, member, guest');
      }
      if ((email && userId) || (!email && !userId)) throw fail(400, 'Send either email or userId');
      let target: UserDoc | undefined;
      if (userId) {
        target = w.state.users.get(userId);
        if (!target || target.isBot) throw w.rules.notFound('user');
      } else {
        if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email!)) throw fail(400, 'Invalid email address');
        target = userForEmail(w, email!);
      }
      if (w.state.membership(ws._id, target._id)) throw fail(400, 'User is already a member of this workspace');
      const m = inviteMember(w, personActor(user), ws, target, role as Role, Boolean(email));
      return ok(w.rules.wrap('member', w.ser.member(m), 'Member added successfully'), 201);
    },
  },
  {
    method: 'PUT',
    template: '/workspace-members/{workspaceId}/{userId}',
    handler: (ctx) => {
      if (ctx.w.rules.observed) return changeRoleObserved(ctx);
      const { w, user, params, body } = ctx;
      const ws = findWorkspace(w, params.workspaceId!, user, 'manager');
      const m = findMember(w, ws._id, params.userId!);
      const role = new Body(body, w.rules, 'member').raw('role');
      if (typeof role !== 'string' || !ROLES.includes(role as Role)) {
        throw fail(400, 'Role must be one of owner, admin, member, guest');
      }
      if (m.role === 'owner' && role !== 'owner' && ownerCount(w, ws._id) <= 1) {
        throw fail(400, 'Cannot demote the last owner of the workspace');
      }
      if (role !== m.role) changeRole(w, personActor(user), m, role as Role);
      return ok(w.rules.wrap('member', w.ser.member(m), 'Member role updated successfully'));
    },
  },
  {
    method: 'DELETE',
    template: '/workspace-members/{workspaceId}/{userId}',
    handler: ({ w, user, params }) => {
      const self = params.userId === user._id;
      const ws = findWorkspace(w, params.workspaceId!, user, self ? 'member' : 'manager');
      if (w.rules.observed) {
        // The deployed service deletes whatever matches, checks nothing, and answers 200 either way.
        const found = w.state.membership(ws._id, params.userId!);
        if (found) removeMember(w, personActor(user), found);
        return ok({ message: 'Member removed successfully' });
      }
      const m = findMember(w, ws._id, params.userId!);
      if (m.role === 'owner' && ownerCount(w, ws._id) <= 1) throw fail(400, 'Cannot remove the last owner of the workspace');
      removeMember(w, personActor(user), m);
      return ok({ message: 'Member removed successfully' });
    },
  },
  {
    method: 'POST',
    template: '/workspace-members/{workspaceId}/accept',
    only: 'spec',
    handler: ({ w, user, params }) => {
      const m = pendingInvite(w, params.workspaceId!, user);
      const at = w.state.clock.stamp();
      m.status = 'active';
      m.joinedAt = at;
      w.activity.log(m.workspace, personActor(user), at, {
        action: 'member_joined',
        message: `${user.email} accepted the invitation`,
        targetName: user.email,
        after: m.role,
      });
      return ok({ message: 'Invitation accepted' });
    },
  },
  {
    method: 'POST',
    template: '/workspace-members/{workspaceId}/decline',
    only: 'spec',
    handler: ({ w, user, params }) => {
      const m = pendingInvite(w, params.workspaceId!, user);
      removeMember(w, personActor(user), m, 'member_declined');
      return ok({ message: 'Invitation declined' });
    },
  },
];

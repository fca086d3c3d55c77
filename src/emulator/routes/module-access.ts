// Module access: per-person grants for private boards, owner/admin only. PUT replaces the whole
// set; unknown ids are dropped silently.

import { Body } from '../body.js';
import { fail } from '../http-reply.js';
import type { RouteDef } from '../router.js';
import { setGrants } from '../writes-structure.js';
import { personActor } from '../actor.js';
import { ok } from './helpers.js';

export const moduleAccessRoutes: RouteDef[] = [
  {
    method: 'GET',
    template: '/module-access/{workspaceId}/{userId}',
    handler: ({ w, user, params }) => {
      const ws = w.state.liveWorkspace(params.workspaceId!);
      if (!ws) throw w.rules.notFound('workspace', params.workspaceId);
      w.access.requireManager(ws._id, user, 'Only an owner or admin can manage board access');
      const m = w.state.activeMembership(ws._id, params.userId!);
      if (!m) throw w.rules.notFound('member');
      const modules = [];
      for (const id of w.state.modulesByWorkspace.get(ws._id)) {
        const mod = w.state.modules.get(id);
        if (!mod || mod.isDeleted) continue;
        modules.push({
          _id: mod._id,
          name: mod.name,
          icon: mod.icon,
          color: mod.color,
          visibility: mod.visibility,
          granted: w.access.hasGrant(ws._id, m.user, mod._id),
          openToRole: w.access.openToRole(mod, m.role),
          canAccess: w.access.canOpen(mod, m.user),
          isCreator: mod.createdBy === m.user,
        });
      }
      return ok({ role: m.role, modules });
    },
  },
  {
    method: 'PUT',
    template: '/module-access/{workspaceId}/{userId}',
    handler: ({ w, user, params, body }) => {
      const ws = w.state.liveWorkspace(params.workspaceId!);
      if (!ws) throw w.rules.notFound('workspace', params.workspaceId);
      w.access.requireManager(ws._id, user, 'Only an owner or admin can manage board access');
      const m = w.state.activeMembership(ws._id, params.userId!);
      const target = m ? w.state.users.get(m.user) : undefined;
      if (!m || !target) throw w.rules.notFound('member');
      const ids = new Body(body, w.rules, 'member').raw('moduleIds');
      if (!Array.isArray(ids) || !ids.every((x) => typeof x === 'string')) throw fail(400, 'moduleIds must be an array of board ids');
      const moduleIds = setGrants(w, personActor(user), ws, target, ids as string[]);
      return ok({ message: 'Board access updated successfully', moduleIds });
    },
  },
];

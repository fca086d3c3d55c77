// Workspace routes. Spec: membership and owner/admin rules. Observed: no permission checks, a
// malformed id is a 500, writes are not logged.

import { Body } from '../body.js';
import type { UserDoc, WorkspaceDoc } from '../docs.js';
import type { RouteDef } from '../router.js';
import { touchWorkspace } from '../touch.js';
import { createWorkspace, deleteWorkspace } from '../writes-structure.js';
import type { World } from '../world.js';
import { personActor } from '../actor.js';
import { ok } from './helpers.js';

export function findWorkspace(w: World, id: string, user: UserDoc, check: 'member' | 'manager' | 'owner' | 'none'): WorkspaceDoc {
  const ws = w.state.liveWorkspace(id);
  if (!ws) throw w.rules.notFound('workspace', id);
  // The deployed server checks nothing on workspace and member routes.
  if (w.rules.observed || check === 'none') return ws;
  const m = w.access.requireMember(ws._id, user);
  if (check === 'manager' && m.role !== 'owner' && m.role !== 'admin') {
    throw w.rules.forbidden('Only an owner or admin can do this');
  }
  if (check === 'owner' && m.role !== 'owner') throw w.rules.forbidden('Only the owner can delete a workspace');
  return ws;
}

export const workspaceRoutes: RouteDef[] = [
  {
    method: 'GET',
    template: '/workspaces',
    handler: ({ w, user }) => {
      const rows = [];
      for (const m of w.state.members.values()) {
        if (m.isDeleted || m.user !== user._id || m.status !== 'active') continue;
        const ws = w.state.liveWorkspace(m.workspace);
        if (!ws) continue;
        const { user: _omit, ...membership } = w.ser.member(m);
        rows.push({ ...membership, workspace: w.ser.workspace(ws) });
      }
      return ok({ workspaces: rows });
    },
  },
  {
    method: 'GET',
    template: '/workspaces/{id}',
    handler: ({ w, user, params }) => ok({ workspace: w.ser.workspace(findWorkspace(w, params.id!, user, 'member')) }),
  },
  {
    method: 'POST',
    template: '/workspaces',
    handler: ({ w, user, body }) => {
      const b = new Body(body, w.rules, 'workspace');
      const name = b.requiredString('name');
      const ws = createWorkspace(w, personActor(user), name, b.optionalString('icon'));
      return ok(w.rules.wrap('workspace', w.ser.workspace(ws), 'Workspace created successfully'), 201);
    },
  },
  {
    method: 'PUT',
    template: '/workspaces/{id}',
    handler: ({ w, user, params, body }) => {
      const ws = findWorkspace(w, params.id!, user, 'manager');
      const b = new Body(body, w.rules, 'workspace');
      const name = b.optionalString('name');
      if (name !== undefined && name === '' && !w.rules.observed) throw w.rules.missing('workspace', 'name');
      const patch = {
        name,
        description: b.optionalString('description'),
        icon: b.optionalString('icon'),
        banner: b.optionalString('banner'),
      };
      const at = w.state.clock.stamp();
      const before = ws.name;
      if (patch.name !== undefined) ws.name = patch.name;
      if (patch.description !== undefined) ws.description = patch.description;
      if (patch.icon !== undefined) ws.icon = patch.icon;
      if (patch.banner !== undefined) ws.banner = patch.banner;
      const actor = personActor(user);
      touchWorkspace(w, actor, ws._id, at);
      w.activity.log(ws._id, actor, at, {
        action: 'workspace_updated',
        message: `updated workspace "${ws.name}"`,
        targetName: ws.name,
        before,
        after: ws.name,
      });
      return ok(w.rules.wrap('workspace', w.ser.workspace(ws), 'Workspace updated successfully'));
    },
  },
  {
    method: 'DELETE',
    template: '/workspaces/{id}',
    handler: ({ w, user, params }) => {
      const ws = findWorkspace(w, params.id!, user, 'owner');
      deleteWorkspace(w, personActor(user), ws);
      return ok({ message: 'Workspace deleted successfully' });
    },
  },
];

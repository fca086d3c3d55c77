// Module (board) routes. Lists silently omit boards the caller cannot open; the observed server
// answers a non-member's list with `{modules: []}` and deletes without cascading.

import { Body } from '../body.js';
import type { ModuleDoc } from '../docs.js';
import { fail } from '../http-reply.js';
import type { RouteDef } from '../router.js';
import { cleanTags, createModule, deleteModule, updateModule, type ModuleInput } from '../writes-structure.js';
import type { World } from '../world.js';
import { personActor } from '../actor.js';
import { listReply, ok } from './helpers.js';
import { findWorkspace } from './workspaces.js';

const VISIBILITIES: ReadonlyArray<ModuleDoc['visibility']> = ['private', 'workspace', 'public'];
const HEX = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

function readCommon(w: World, b: Body): Partial<ModuleInput> {
  const out: Partial<ModuleInput> = {
    description: b.optionalString('description'),
    icon: b.optionalString('icon'),
    color: b.optionalString('color'),
  };
  if (out.color !== undefined && !HEX.test(out.color) && !w.rules.observed) throw fail(400, 'color must be a hex colour');
  const visibility = b.raw('visibility');
  if (visibility !== undefined) {
    if (typeof visibility !== 'string' || !VISIBILITIES.includes(visibility as ModuleDoc['visibility'])) {
      throw fail(400, 'Visibility must be one of private, workspace, public');
    }
    out.visibility = visibility as ModuleDoc['visibility'];
  }
  const tags = b.jsonCopy('tags');
  if (tags !== undefined) {
    if (Array.isArray(tags)) out.tags = cleanTags(tags);
    else if (!w.rules.observed) throw fail(400, 'tags must be an array of {label, color}');
  }
  return out;
}

export const moduleRoutes: RouteDef[] = [
  {
    method: 'GET',
    template: '/modules/{workspaceId}',
    handler: ({ w, user, params, query }) => {
      const id = params.workspaceId!;
      let ws = w.state.liveWorkspace(id);
      if (w.rules.observed) {
        // The deployed server answers non-members (and unknown workspaces) with an empty list.
        if (!ws || !w.state.activeMembership(ws._id, user._id)) return listReply(w, 'modules', [], query);
      } else {
        if (!ws) throw w.rules.notFound('workspace', id);
        w.access.requireMember(ws._id, user);
      }
      ws = ws!;
      const mods = [];
      for (const mid of w.state.modulesByWorkspace.get(ws._id)) {
        const m = w.state.modules.get(mid);
        if (m && !m.isDeleted && w.access.canOpen(m, user._id)) mods.push(m);
      }
      mods.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
      return listReply(w, 'modules', mods.map((m) => w.ser.module(m, true)), query);
    },
  },
  {
    method: 'POST',
    template: '/modules/{workspaceId}',
    handler: ({ w, user, params, body }) => {
      const ws = w.state.liveWorkspace(params.workspaceId!);
      if (!ws) throw w.rules.notFound('workspace', params.workspaceId);
      const m = w.access.requireMember(ws._id, user);
      if (m.role === 'guest') throw w.rules.forbidden('Guests cannot create boards');
      const b = new Body(body, w.rules, 'module');
      const name = b.requiredString('name');
      const input = { ...readCommon(w, b), name };
      const mod = createModule(w, personActor(user), ws, input);
      return ok(w.rules.wrap('module', w.ser.module(mod, false), 'Board created successfully'), 201);
    },
  },
  {
    method: 'PUT',
    template: '/modules/{moduleId}',
    handler: ({ w, user, params, body }) => {
      const mod = w.access.module(params.moduleId!, user);
      const b = new Body(body, w.rules, 'module');
      const name = b.optionalString('name');
      if (name === '') throw w.rules.missing('module', 'name');
      const patch = { ...readCommon(w, b), name };
      if (patch.visibility !== undefined && patch.visibility !== mod.visibility && !w.access.isManager(mod.workspace, user._id)) {
        throw w.rules.forbidden('Only an owner or admin can change board visibility');
      }
      updateModule(w, personActor(user), mod, patch);
      return ok(w.rules.wrap('module', w.ser.module(mod, false), 'Board updated successfully'));
    },
  },
  {
    method: 'DELETE',
    template: '/modules/{moduleId}',
    handler: ({ w, user, params }) => {
      const mod = w.access.module(params.moduleId!, user);
      deleteModule(w, personActor(user), mod);
      return ok({ message: 'Board deleted successfully' });
    },
  },
];

export { findWorkspace };

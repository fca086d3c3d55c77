// Appliers for a whole workspace (restore workspace): the workspace itself, its members with their
// roles, and the automations that watch every module (columns named, not ids).

import { resolveRefs } from '../remap.js';
import { asCreated, differing, firstUnclaimed, type Appliers } from './types.js';

/** Roles POST accepts; an owner is added as admin, then promoted. */
const ADDABLE = new Set(['admin', 'member', 'guest']);

export const workspaceAppliers: Pick<Appliers, 'createWorkspace' | 'addMember' | 'createWorkspaceAutomation'> = {
  createWorkspace: {
    create: async (s, ctx) => asCreated(await ctx.client.createWorkspace({ name: s.name, ...(s.icon ? { icon: s.icon } : {}) }, ctx.call)),
    lookUp: async (s, ctx) => firstUnclaimed(await ctx.client.listWorkspaces(), (w) => w.name === s.name, ctx),
    finish: async (s, created, ctx) => {
      const body = differing(s.then, created);
      if (Object.keys(body).length) await ctx.client.updateWorkspace(ctx.resolve(s.oldId), body, ctx.call);
    },
  },
  // Someone already a member (the restoring user, who owns a workspace it created) is left as is.
  addMember: {
    finish: async (s, _, ctx) => {
      const ws = ctx.workspace(s.workspaceId);
      const present = (await ctx.client.listMembers(ws, ctx.call)).find((m) => m.userId === s.userId);
      if (!present) await ctx.client.addMember(ws, { userId: s.userId, role: ADDABLE.has(s.role) ? s.role : 'admin' }, ctx.call);
      if (s.role === 'owner' && present?.role !== 'owner') await ctx.client.setMemberRole(ws, s.userId, 'owner', ctx.call);
    },
  },
  createWorkspaceAutomation: {
    create: async (s, ctx) => asCreated(await ctx.client.createWorkspaceAutomation(ctx.workspace(s.workspaceId), resolveRefs(s.body, ctx.resolve), ctx.call)),
    lookUp: async (s, ctx) => firstUnclaimed(await ctx.client.listWorkspaceAutomations(ctx.workspace(s.workspaceId)), (a) => a.name === s.body.value.name, ctx),
  },
};

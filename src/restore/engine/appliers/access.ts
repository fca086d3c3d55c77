// Appliers for who may see the module and what runs on it: module-access grants and automations.

import { resolveRefs } from '../remap.js';
import { asCreated, firstUnclaimed, type Appliers } from './types.js';

export const accessAppliers: Pick<Appliers, 'grantAccess' | 'createAutomation'> = {
  // Read-modify-write of one member's grant set: the PUT replaces the whole set.
  grantAccess: {
    finish: async (s, _, ctx) => {
      const moduleId = ctx.resolve(s.module);
      const ws = ctx.workspace(s.workspaceId);
      const rows = await ctx.client.getModuleAccess(ws, s.userId, ctx.call);
      const granted = rows.filter((r) => r.granted).map((r) => r.moduleId);
      if (!granted.includes(moduleId)) await ctx.client.putModuleAccess(ws, s.userId, [...granted, moduleId], ctx.call);
    },
  },
  createAutomation: {
    create: async (s, ctx) => asCreated(await ctx.client.createModuleAutomation(ctx.resolve(s.module), resolveRefs(s.body, ctx.resolve), ctx.call)),
    lookUp: async (s, ctx) => firstUnclaimed(await ctx.client.listModuleAutomations(ctx.resolve(s.module)), (a) => a.name === s.body.value.name, ctx),
  },
};

// Appliers for a module's structure: the module itself, its settings, collections and columns (both
// scopes), and the sub-record columns the service seeds by itself.

import type { ColumnThen } from '../plan-steps.js';
import { resolveRefs } from '../remap.js';
import { asCreated, differing, firstUnclaimed, type Appliers } from './types.js';

export const structureAppliers: Pick<Appliers, 'createModule' | 'updateModule' | 'createCollection' | 'createColumn' | 'pruneSeededColumns'> = {
  createModule: {
    create: async (s, ctx) =>
      asCreated(await ctx.client.createModule(ctx.workspace(s.workspaceId), { name: s.name, ...(s.description ? { description: s.description } : {}), tags: s.tags }, ctx.call)),
    lookUp: async (s, ctx) => firstUnclaimed(await ctx.client.listModules(ctx.workspace(s.workspaceId)), (m) => m.name === s.name, ctx),
  },
  updateModule: {
    finish: async (s, _, ctx) => {
      await ctx.client.updateModule(ctx.resolve(s.module), s.body, ctx.call);
    },
  },
  createCollection: {
    create: async (s, ctx) => asCreated(await ctx.client.createCollection(ctx.resolve(s.module), s.body, ctx.call)),
    lookUp: async (s, ctx) => firstUnclaimed(await ctx.client.listCollections(ctx.resolve(s.module)), (c) => c.name === s.body.name, ctx),
    // The deployed service ignores a create's position: what differs is set with a PUT.
    finish: async (s, created, ctx) => {
      const body = differing(s.then, created);
      if (Object.keys(body).length) await ctx.client.updateCollection(ctx.resolve(s.oldId), body, ctx.call);
    },
  },
  createColumn: {
    create: async (s, ctx) => asCreated(await ctx.client.createColumn(ctx.resolve(s.module), resolveRefs(s.body, ctx.resolve), ctx.call)),
    lookUp: async (s, ctx) => {
      const scope = s.body.value.scope ?? 'record';
      return firstUnclaimed(await ctx.client.listColumns(ctx.resolve(s.module), scope), (c) => c.name === s.body.value.name, ctx);
    },
    finish: async (s, created, ctx) => {
      const body: ColumnThen = differing(s.then, created);
      if (Object.keys(body).length) await ctx.client.updateColumn(ctx.resolve(s.oldId), body, ctx.call);
    },
  },
  pruneSeededColumns: {
    // Only columns no step of this run created: the ones the service seeded by itself.
    finish: async (s, _, ctx) => {
      const cols = await ctx.client.listColumns(ctx.resolve(s.module), 'subrecord', ctx.call);
      for (const c of cols) if (!ctx.isClaimed(c.id)) await ctx.client.deleteColumn(c.id, ctx.call);
    },
  },
};

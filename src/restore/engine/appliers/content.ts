// Appliers for what people wrote: cells, amendments (edited ones flagged by a PUT) and the
// tombstones of deleted amendments that kept live replies.

import { resolveCell } from '../remap.js';
import { asCreated, deleteOnce, firstUnclaimed, type Appliers } from './types.js';

export const contentAppliers: Pick<Appliers, 'createCell' | 'createAmendment' | 'deleteAmendment'> = {
  createCell: {
    create: async (s, ctx) =>
      asCreated(
        await ctx.client.createValue(
          {
            record: ctx.resolve(s.record),
            column: ctx.resolve(s.column),
            collectionName: ctx.resolve(s.collection),
            module: ctx.resolve(s.module),
            workspace: ctx.workspace(s.workspaceId),
            value: resolveCell(s.value, ctx.resolve),
          },
          ctx.call,
        ),
      ),
    lookUp: async (s, ctx) => {
      const column = ctx.resolve(s.column);
      return firstUnclaimed(await ctx.client.listValues(ctx.resolve(s.record)), (v) => v.columnId === column, ctx);
    },
  },
  createAmendment: {
    create: async (s, ctx) =>
      asCreated(await ctx.client.createAmendment(ctx.resolve(s.record), { message: s.message, ...(s.parent ? { parentComment: ctx.resolve(s.parent) } : {}) }, ctx.call)),
    lookUp: async (s, ctx) => {
      const parent = s.parent === null ? null : ctx.resolve(s.parent);
      const texts = new Set([s.message, s.editTo]);
      return firstUnclaimed(await ctx.client.listAmendments(ctx.resolve(s.record)), (a) => texts.has(a.message) && a.parentId === parent, ctx);
    },
    finish: async (s, created, ctx) => {
      if (s.editTo !== undefined && created?.['message'] !== s.editTo) await ctx.client.updateAmendment(ctx.resolve(s.oldId), { message: s.editTo }, ctx.call);
    },
  },
  deleteAmendment: {
    finish: (s, _, ctx) => deleteOnce(() => ctx.client.deleteAmendment(ctx.resolve(s.target), ctx.call)),
  },
};

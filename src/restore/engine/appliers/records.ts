// Appliers for rows: records and sub-records (created, then positioned, completed and — for a
// sub-record left behind when its parent moved — put back in its own collection), and archival.

import { asCreated, differing, firstUnclaimed, type Appliers } from './types.js';

export const recordAppliers: Pick<Appliers, 'createRecord' | 'createSubRecord' | 'archiveRecord' | 'unarchiveRecord'> = {
  createRecord: {
    create: async (s, ctx) => asCreated(await ctx.client.createRecord(ctx.resolve(s.collection), { name: s.name }, ctx.call)),
    lookUp: async (s, ctx) => firstUnclaimed(await ctx.client.listRecords(ctx.resolve(s.collection)), (r) => r.name === s.name, ctx),
    finish: async (s, created, ctx) => {
      const body = differing(s.then, created);
      if (Object.keys(body).length) await ctx.client.updateRecord(ctx.resolve(s.oldId), body, ctx.call);
    },
  },
  createSubRecord: {
    create: async (s, ctx) => asCreated(await ctx.client.createSubRecord(ctx.resolve(s.parent), { name: s.name }, ctx.call)),
    lookUp: async (s, ctx) => firstUnclaimed(await ctx.client.listSubRecords(ctx.resolve(s.parent)), (r) => r.name === s.name, ctx),
    finish: async (s, created, ctx) => {
      const body: { position?: number; isCompleted?: boolean; collectionName?: string } = differing(s.then, created);
      if (s.placeIn) {
        const collectionName = ctx.resolve(s.placeIn);
        if (created?.['collectionId'] !== collectionName) body.collectionName = collectionName;
      }
      if (Object.keys(body).length) await ctx.client.updateRecord(ctx.resolve(s.oldId), body, ctx.call);
    },
  },
  archiveRecord: {
    finish: async (s, _, ctx) => {
      await ctx.client.updateRecord(ctx.resolve(s.target), { isArchived: true }, ctx.call);
    },
  },
  // restore records: the service still holds it (observed deletes archive), so it comes back in place.
  unarchiveRecord: {
    finish: async (s, _, ctx) => {
      await ctx.client.updateRecord(ctx.resolve(s.target), { isArchived: false }, ctx.call);
    },
  },
};

// Appliers for writes into live objects (rollback): a cell's value put back or cleared, record,
// column and collection fields put back, an edited amendment's text put back. Targets that the run
// recreated resolve through the journal like any old id; live ones map onto themselves.

import { canonicalJson } from '../../../domain/canonical-json.js';
import { WbsyncError } from '../../../domain/errors.js';
import { resolveCell } from '../remap.js';
import { deleteOnce, type Appliers } from './types.js';

export const inPlaceAppliers: Pick<Appliers, 'setCell' | 'clearCell' | 'updateRecord' | 'updateColumn' | 'updateCollection' | 'updateAmendment'> = {
  setCell: {
    finish: async (s, _, ctx) => {
      await ctx.client.updateValue(ctx.resolve(s.target), { value: resolveCell(s.value, ctx.resolve) }, ctx.call);
    },
  },
  clearCell: {
    finish: (s, _, ctx) => deleteOnce(() => ctx.client.deleteValue(ctx.resolve(s.target), ctx.call)),
  },
  updateRecord: {
    finish: async (s, _, ctx) => {
      await ctx.client.updateRecord(ctx.resolve(s.target), { ...s.body, ...(s.collection ? { collectionName: ctx.resolve(s.collection) } : {}) }, ctx.call);
    },
  },
  updateColumn: {
    finish: async (s, _, ctx) => {
      const now = await ctx.client.updateColumn(ctx.resolve(s.target), s.body, ctx.call);
      // The published interface makes settings create-only: a service may answer 200 and keep its own.
      if (s.body.settings !== undefined && canonicalJson(now.settings ?? null) !== canonicalJson(s.body.settings ?? null)) {
        throw new WbsyncError('http', `the service kept the column's settings (create-only there): ${canonicalJson(now.settings ?? null).slice(0, 120)}`, { details: { notTaken: true } });
      }
    },
  },
  updateCollection: {
    finish: async (s, _, ctx) => {
      await ctx.client.updateCollection(ctx.resolve(s.target), s.body, ctx.call);
    },
  },
  updateAmendment: {
    finish: async (s, _, ctx) => {
      await ctx.client.updateAmendment(ctx.resolve(s.target), { message: s.message }, ctx.call);
    },
  },
};

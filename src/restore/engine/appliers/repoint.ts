// Appliers that re-point live objects at what a rollback recreated. A column's settings go by PUT;
// a service that answers but keeps its own (settings are create-only in the published interface)
// gets the column made anew with them and the old one deleted, the journal mapping the old id onto
// the new column. An automation is read, its old ids swapped for the new ones, and written whole with
// its on/off state as it is at that moment (the deployed service re-activates an automation given a
// complete body unless told otherwise; a paused one stays paused until the run switches it on).

import { shown } from '../../../domain/display-text.js';
import { canonicalJson } from '../../../domain/canonical-json.js';
import { WbsyncError } from '../../../domain/errors.js';
import type { ColumnThen, Step } from '../plan-steps.js';
import { resolveRefs } from '../remap.js';
import { asCreated, differing, firstUnclaimed, type Appliers, type StepContext } from './types.js';

/** The column's module now: another module's is live (its own id); the run's own goes through the journal. */
const moduleOf = (s: Extract<Step, { op: 'repointColumn' }>, ctx: StepContext): string => (s.foreign ? s.module : ctx.resolve(s.module));

const same = (a: unknown, b: unknown): boolean => canonicalJson(a ?? null) === canonicalJson(b ?? null);

export const repointAppliers: Pick<Appliers, 'repointColumn' | 'repointAutomation'> = {
  repointColumn: {
    create: async (s, ctx) => {
      const settings = resolveRefs(s.settings, ctx.resolve);
      const put: ColumnThen = { ...s.body, settings };
      const now = await ctx.client.updateColumn(s.target, put, ctx.call);
      if (same(now.settings, settings)) return asCreated({ ...now, id: s.target });
      // answered, settings kept: declared (a refusal with the advice), never made anew. The run's own
      // relation column stays what the journal maps it to (its cells are written after), and is
      // declared by finish
      if (s.inPlaceOnly !== undefined && !s.foreign) return asCreated({ ...now, id: s.target });
      if (s.inPlaceOnly !== undefined) throw new WbsyncError('http', s.inPlaceOnly, { details: { notTaken: true } });
      return asCreated(await ctx.client.createColumn(moduleOf(s, ctx), { ...s.remake, settings }, ctx.call));
    },
    // after an unknown outcome: a copy made with these settings, else the column itself re-pointed
    lookUp: async (s, ctx) => {
      const settings = resolveRefs(s.settings, ctx.resolve);
      const cols = await ctx.client.listColumns(moduleOf(s, ctx), s.remake.scope);
      const copy = s.inPlaceOnly !== undefined ? null : firstUnclaimed(cols, (c) => c.id !== s.target && c.name === s.remake.name && c.type === s.remake.type && same(c.settings, settings), ctx);
      if (copy) return copy;
      return cols.some((c) => c.id === s.target && same(c.settings, settings)) ? s.target : null;
    },
    // made anew: its fields as they should be, then the old one (pointing at nothing) deleted
    finish: async (s, created, ctx) => {
      const id = ctx.resolve(s.oldId);
      if (id === s.target) {
        if (s.inPlaceOnly === undefined) return;
        const settings = resolveRefs(s.settings, ctx.resolve);
        const now = created ?? (await ctx.client.listColumns(moduleOf(s, ctx), s.remake.scope, ctx.call)).find((c) => c.id === s.target);
        if (!now || !same(now.settings, settings)) throw new WbsyncError('http', s.inPlaceOnly, { details: { notTaken: true } });
        return;
      }
      const body = differing(s.then, created);
      if (Object.keys(body).length) await ctx.client.updateColumn(id, body, ctx.call);
      const cols = await ctx.client.listColumns(moduleOf(s, ctx), s.remake.scope, ctx.call);
      if (cols.some((c) => c.id === s.target)) await ctx.client.deleteColumn(s.target, ctx.call);
    },
  },
  repointAutomation: {
    finish: async (s, _, ctx) => {
      const list = s.scope === 'module' ? await ctx.client.listModuleAutomations(s.owner, ctx.call) : await ctx.client.listWorkspaceAutomations(s.owner, ctx.call);
      const now = list.find((a) => a.id === s.target);
      if (!now) throw new WbsyncError('not_found', `automation ${s.target} (${shown(s.label)}) is gone`, { status: 404 });
      const body = resolveRefs({ value: { name: now.name, trigger: now.trigger, conditions: now.conditions, match: now.match, actions: now.actions }, refs: s.refs }, ctx.resolve);
      await ctx.client.updateAutomation(s.target, { ...body, isActive: now.isActive }, ctx.call);
    },
  },
};

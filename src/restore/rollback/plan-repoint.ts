// What points at what the rollback recreates. A collection or column made anew gets a new id; the
// live objects that named the old one would point at nothing: reference columns whose settings go
// `via` a recreated relation column (or show one of its columns), the module's and the workspace's
// automations whose trigger, conditions or actions name a recreated column or collection, and the
// same objects of the workspace's other modules (planRepointForeign).
// Each is re-pointed to the copy: an automation through the automation update route (read, ids swapped,
// written whole with its on/off state as it is then); a column through its update route, or — where
// the service keeps settings create-only (the published interface) — made anew with the settings and
// fields it should have, the old one deleted. What names an object of the snapshot that is gone and
// that this run does not recreate (the selection leaves it out) is declared: it still points at
// nothing.

import type { Column } from '../../domain/entities.js';
import type { ColumnThen, Step } from '../engine/plan-steps.js';
import { collectRefs } from '../engine/remap.js';
import { planForeignRepoint } from '../engine/repoint-foreign.js';
import type { PlanContext } from './context.js';
import type { ColumnUpdates } from './plan-structure.js';

/** Ids of the snapshot's collections and columns that are gone and not recreated by this run. */
function deadIds(ctx: PlanContext): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of ctx.base.collections) if (!ctx.liveCollections.has(c.id) && !ctx.recreated.has(c.id)) out.set(c.id, `collection "${c.name}"`);
  for (const c of ctx.base.columns) if (!ctx.liveColumns.has(c.id) && !ctx.recreated.has(c.id)) out.set(c.id, `column "${c.name}"`);
  return out;
}

function declareDead(ctx: PlanContext, entity: 'column' | 'automation', id: string, label: string, value: unknown, dead: Map<string, string>): void {
  for (const x of collectRefs(value, new Set(dead.keys()))) {
    ctx.notRestored.push({
      entity,
      id,
      label,
      reason: `names ${dead.get(x)} (${x}), deleted since the snapshot and left out of this rollback: it still names the dead id (roll that back too, e.g. --kinds columns,collections, or edit it)`,
    });
  }
}

/** The fields a column made anew must end with: the live ones, with the plan's writes on top. */
function finalFields(c: Column, body: ColumnThen): ColumnThen {
  const then: ColumnThen = {};
  const width = body.width ?? c.width;
  const position = body.position ?? c.position;
  if (width !== null && width !== undefined) then.width = width;
  if (position !== null && position !== undefined) then.position = position;
  const options = body.statusOptions ?? c.statusOptions;
  if (c.type === 'status' && options) then.statusOptions = options;
  if (body.isRequired ?? c.isRequired) then.isRequired = true;
  if (body.isHidden ?? c.isHidden) then.isHidden = true;
  return then;
}

/** Why the module's own relation column is declared where its settings stay create-only, and what to do. */
function relationAdvice(ctx: PlanContext, name: string, refs: string[]): string {
  const label = new Map<string, string>([...ctx.base.collections.map((c) => [c.id, `collection ${c.name}`] as const), ...ctx.base.columns.map((c) => [c.id, `column ${c.name}`] as const)]);
  const what = refs.map((r) => label.get(r) ?? r).join(', ');
  return `settings not taken (the service keeps them create-only), and a relation column is not made anew (its cells are links people made, perhaps after the damage; reference columns go via its id): it still names the dead id — point column ${name} at ${what} (made anew by this rollback) again by hand`;
}

/** Field writes on live columns, and re-pointing of those whose settings name what is recreated. */
export function planRepointColumns(ctx: PlanContext, updates: ColumnUpdates): void {
  const dead = deadIds(ctx);
  for (const c of ctx.live.columns) {
    const upd = updates.get(c.id);
    const settings = (upd?.body.settings !== undefined ? upd.body.settings : c.settings) ?? null;
    declareDead(ctx, 'column', c.id, c.name, settings, dead);
    const refs = collectRefs(settings, ctx.recreated);
    if (!refs.length) {
      if (upd) {
        ctx.liveIds.set(c.id, 'column');
        ctx.steps.columns.push({ op: 'updateColumn', key: `column-fields:${c.id}`, target: c.id, body: upd.body, label: upd.label });
      }
      continue;
    }
    const { settings: _dropped, ...body } = upd?.body ?? {};
    ctx.repointedColumns.add(c.id);
    if (c.type === 'relation') ctx.keptColumns.add(c.id);
    ctx.repoint.push({ entity: 'column', id: c.id, name: c.name, type: c.type, names: refs });
    ctx.count('columnsRepointed');
    ctx.steps.repointColumns.push({
      op: 'repointColumn',
      kind: 'column',
      key: `repoint-column:${c.id}`,
      oldId: c.id,
      module: ctx.moduleId,
      // a relation column is never made anew, the module's own either: its cells are links people
      // made (some perhaps after the damage) and reference columns go via its id
      ...(c.type === 'relation' ? { inPlaceOnly: relationAdvice(ctx, c.name, refs) } : {}),
      target: c.id,
      settings: { value: settings ?? {}, refs },
      body,
      remake: { name: body.name ?? c.name, type: c.type, scope: c.scope },
      then: finalFields(c, body),
      label: upd?.label ?? c.name,
    });
  }
}

/** The module's and the workspace's automations naming what the run recreates. */
export function planRepointAutomations(ctx: PlanContext): void {
  const dead = deadIds(ctx);
  for (const a of ctx.input.automations ?? []) {
    const body = { trigger: a.trigger, conditions: a.conditions, actions: a.actions };
    declareDead(ctx, 'automation', a.id, a.name, body, dead);
    const refs = collectRefs(body, ctx.recreated);
    if (!refs.length) continue;
    ctx.repoint.push({ entity: 'automation', id: a.id, name: a.name, names: refs, ...(a.scope === 'workspace' ? { owner: { scope: 'workspace' as const, id: a.workspaceId, name: 'the workspace' } } : {}) });
    ctx.count('automationsRepointed');
    const step: Step = { op: 'repointAutomation', key: `repoint-automation:${a.id}`, target: a.id, scope: a.scope, owner: a.scope === 'module' ? (a.moduleId ?? ctx.moduleId) : a.workspaceId, refs, label: a.name };
    ctx.steps.repointAutomations.push(step);
  }
}

/** The workspace's other modules: their automations and relation/reference columns naming what the
 * run recreates (../engine/repoint-foreign.ts). */
export function planRepointForeign(ctx: PlanContext): void {
  const foreign = ctx.input.foreign;
  if (!foreign) return;
  const plan = planForeignRepoint({
    foreign,
    made: ctx.recreated,
    dead: deadIds(ctx),
    subject: `module ${ctx.live.module.name}`,
    deadAdvice: 'roll that back too, e.g. --kinds columns,collections, or edit it',
  });
  ctx.steps.repointColumns.push(...plan.columns);
  ctx.steps.repointAutomations.push(...plan.automations);
  ctx.repoint.push(...plan.repoint);
  ctx.notRestored.push(...plan.notRestored);
  if (plan.columns.length) ctx.count('columnsRepointed', plan.columns.length);
  if (plan.automations.length) ctx.count('automationsRepointed', plan.automations.length);
}

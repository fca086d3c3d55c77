// The rollback's structure planners: collections and columns deleted since the snapshot are made
// anew (new ids through the journal), the fields of live ones are put back. A column whose settings
// name another column made anew in the same run (a reference going through a recreated relation)
// is made after it. Field writes on a live column whose settings name something recreated are left
// to the re-point planner, which makes them in the same write.

import { columnThen, type ColumnThen } from '../engine/plan-steps.js';
import { collectRefs, remappable } from '../engine/remap.js';
import { byId, type PlanContext } from './context.js';

export function planCollections(ctx: PlanContext): void {
  const afterCollections = byId(ctx.after.collections);
  for (const c of ctx.base.collections) {
    if (!ctx.pick.collection(c.id)) continue;
    const now = ctx.liveCollections.get(c.id);
    if (!now) {
      ctx.recreated.add(c.id);
      ctx.count('collectionsRecreated');
      ctx.writes.push({ entity: 'collection', id: c.id, label: c.name, field: '(deleted)', live: null, base: c.name, after: afterCollections.get(c.id)?.name ?? null });
      ctx.steps.collections.push({
        op: 'createCollection',
        kind: 'collection',
        key: `collection:${c.id}`,
        oldId: c.id,
        module: ctx.moduleId,
        body: { name: c.name, ...(c.color ? { color: c.color } : {}), ...(c.position !== null ? { position: c.position } : {}) },
        then: { ...(c.position !== null ? { position: c.position } : {}), ...(c.isCollapsed ? { isCollapsed: true } : {}) },
      });
      continue;
    }
    const was = afterCollections.get(c.id);
    const body: Record<string, unknown> = {};
    for (const f of ['name', 'color', 'position', 'isCollapsed'] as const) {
      if (ctx.decide({ entity: 'collection', id: c.id, label: c.name, field: f, live: now[f], base: c[f], after: was?.[f] ?? null })) body[f] = c[f];
    }
    if (Object.keys(body).length) {
      ctx.liveIds.set(c.id, 'collection');
      ctx.steps.collections.push({ op: 'updateCollection', key: `collection-fields:${c.id}`, target: c.id, body: body as { name?: string; color?: string; position?: number; isCollapsed?: boolean }, label: c.name });
    }
  }
}

/** Field writes on live columns, by id (the re-point planner folds those of re-pointed ones in). */
export type ColumnUpdates = Map<string, { body: ColumnThen; label: string }>;

export function planColumns(ctx: PlanContext): ColumnUpdates {
  const afterColumns = byId(ctx.after.columns);
  const gone = ctx.base.columns.filter((c) => ctx.pick.column(c.id) && !ctx.liveColumns.has(c.id));
  for (const c of gone) {
    ctx.recreatedColumns.add(c.id);
    ctx.recreated.add(c.id);
  }
  for (const c of gone) {
    ctx.count('columnsRecreated');
    ctx.writes.push({ entity: 'column', id: c.id, label: c.name, field: '(deleted)', live: null, base: c.name, after: afterColumns.get(c.id)?.name ?? null });
    const settings = c.settings && Object.keys(c.settings).length ? { settings: c.settings } : {};
    const body = remappable({ name: c.name, type: c.type, scope: c.scope, ...settings }, ctx.recreated);
    const step = { op: 'createColumn', kind: 'column', key: `column:${c.id}`, oldId: c.id, module: ctx.moduleId, body, then: columnThen(c) } as const;
    // a reference going through a relation column recreated too: made once that one exists
    if (collectRefs(c.settings, ctx.recreatedColumns).length) ctx.steps.columnsNamingColumns.push(step);
    else ctx.steps.columns.push(step);
  }
  const updates: ColumnUpdates = new Map();
  for (const c of ctx.base.columns) {
    const now = ctx.liveColumns.get(c.id);
    if (!now || !ctx.pick.column(c.id)) continue;
    const was = afterColumns.get(c.id);
    const body: Record<string, unknown> = {};
    for (const f of ['name', 'width', 'position', 'isRequired', 'isHidden', 'statusOptions', 'settings'] as const) {
      if (f === 'statusOptions' && c.type !== 'status') continue;
      if (ctx.decide({ entity: 'column', id: c.id, label: c.name, field: f, live: now[f], base: c[f], after: was?.[f] ?? null })) body[f] = c[f];
    }
    if (Object.keys(body).length) updates.set(c.id, { body: body as ColumnThen, label: c.name });
  }
  return updates;
}

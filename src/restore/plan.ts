// The restore planner: pure. From a module tree (as of a snapshot) and a few facts about the live
// service, it lays out every write in an order the service accepts: structure before content, every
// column (both scopes) before the first sub-record so nothing gets seeded, parents before replies,
// automations last so they cannot fire on the restore's own writes.

import type { Amendment, BoardRecord, Column } from '../domain/entities.js';
import { cellData, translateIds } from './diff.js';
import { threadOrder } from './diff-match.js';
import type { ColumnThen, NotRestored, Phase, RestorePlan, Step } from './plan-steps.js';
import { remappable, remappableCell, targetModules } from './remap.js';
import type { ModuleTree } from './tree.js';

export interface PlanInput {
  tree: ModuleTree;
  targetWorkspaceId: string;
  /** Modules that exist live (ids inside settings/recipes naming them stay as they are). */
  liveModuleIds: ReadonlySet<string>;
  /** Names of modules known to the snapshot, for readable reports. */
  moduleNames?: ReadonlyMap<string, string>;
  /** Users who are members of the target workspace now (grants go to members only). */
  memberIds: ReadonlySet<string>;
  /** Display names of authors, for the attribution line. */
  userNames?: ReadonlyMap<string, string>;
  /** Old → new ids of modules restored earlier (their journals): ids naming them follow the copy. */
  restoredIds?: ReadonlyMap<string, string>;
  /** config.restore.attribution: {author} and {createdAt} filled in; '' adds nothing. */
  attribution: string;
}

export function attributionLine(template: string, author: string, createdAt: string): string {
  return template.split('{author}').join(author).split('{createdAt}').join(createdAt);
}

function withAttribution(message: string, line: string): string {
  if (!line) return message;
  return message ? `${message}\n\n${line}` : line;
}

/** Columns in tiers: a column comes after the columns of this module its settings name. */
function columnTiers(columns: Column[], internal: ReadonlySet<string>): { tiers: Column[][]; cyclic: Column[] } {
  const ids = new Set(columns.map((c) => c.id));
  const deps = new Map(columns.map((c) => [c.id, remappable(c.settings ?? {}, internal).refs.filter((r) => ids.has(r) && r !== c.id)]));
  const placed = new Set<string>();
  const tiers: Column[][] = [];
  let left = columns;
  while (left.length) {
    const tier = left.filter((c) => deps.get(c.id)!.every((d) => placed.has(d)));
    if (!tier.length) return { tiers, cyclic: left };
    for (const c of tier) placed.add(c.id);
    tiers.push(tier);
    left = left.filter((c) => !placed.has(c.id));
  }
  return { tiers, cyclic: [] };
}

function byPosition<T extends { position: number | null }>(list: T[]): T[] {
  return [...list].sort((a, b) => (a.position ?? Infinity) - (b.position ?? Infinity));
}

export function planRestore(input: PlanInput): RestorePlan {
  const { tree } = input;
  const mod = tree.module;
  const notRestored: NotRestored[] = [];
  const phases: Phase[] = [];
  const counts: Record<string, number> = {};
  const count = (k: string): void => {
    counts[k] = (counts[k] ?? 0) + 1;
  };
  const phase = (name: string, steps: Step[]): void => {
    if (steps.length) phases.push({ name, steps });
  };

  const internal = new Set<string>([mod.id, ...tree.collections.map((c) => c.id), ...tree.columns.map((c) => c.id), ...tree.records.map((r) => r.id)]);
  // Ids of other modules restored earlier point at their restored copies, not at the dead originals.
  // This module's own ids always map to the copy being made, never to an earlier copy.
  const extMap = new Map([...(input.restoredIds ?? [])].filter(([old]) => !internal.has(old)));
  const ext = <T>(v: T): T => (extMap.size ? (translateIds(v, extMap) as T) : v);
  const extCell = (v: string): string => {
    const data = cellData(v);
    return typeof data === 'string' || data === null ? ext(v) : JSON.stringify(ext(data));
  };
  const moduleName = (id: string): string => input.moduleNames?.get(id) ?? id;
  const foreignModules = (v: unknown): string[] => targetModules(v).filter((m) => !internal.has(m) && !input.liveModuleIds.has(m));

  phase('module', [{ op: 'createModule', kind: 'module', key: `module:${mod.id}`, oldId: mod.id, workspaceId: input.targetWorkspaceId, name: mod.name, ...(mod.description ? { description: mod.description } : {}), tags: mod.tags }]);
  const look: { icon?: string; color?: string; visibility?: string } = {};
  if (mod.icon) look.icon = mod.icon;
  if (mod.color) look.color = mod.color;
  if (mod.visibility) look.visibility = mod.visibility;
  phase('module settings', Object.keys(look).length ? [{ op: 'updateModule', key: `module-settings:${mod.id}`, module: mod.id, body: look }] : []);

  phase(
    'collections',
    byPosition(tree.collections).map((c) => {
      count('collections');
      const body: { name: string; color?: string; position?: number } = { name: c.name };
      if (c.color) body.color = c.color;
      if (c.position !== null) body.position = c.position;
      const then: { position?: number; isCollapsed?: boolean } = {};
      if (c.position !== null) then.position = c.position;
      if (c.isCollapsed) then.isCollapsed = true;
      return { op: 'createCollection', kind: 'collection', key: `collection:${c.id}`, oldId: c.id, module: mod.id, body, then } satisfies Step;
    }),
  );

  // Every column of both scopes before any sub-record: the first sub-record seeds three columns
  // unless a sub-record column exists already.
  const { tiers, cyclic } = columnTiers(byPosition(tree.columns), internal);
  for (const c of cyclic) notRestored.push({ entity: 'column', id: c.id, label: c.name, reason: 'its settings name columns that name it back (a cycle); restore refused for this column' });
  tiers.forEach((tier, i) =>
    phase(
      tiers.length > 1 ? `columns (tier ${i + 1})` : 'columns',
      tier.map((c) => {
        count('columns');
        const settings = ext(c.settings);
        for (const m of foreignModules(settings)) {
          notRestored.push({ entity: 'column', id: c.id, label: c.name, reason: `settings name module ${moduleName(m)} (${m}), which is not live: kept as is (restore that module and fix the column)` });
        }
        const body = { name: c.name, type: c.type, scope: c.scope, ...(settings && Object.keys(settings).length ? { settings } : {}) };
        const then: ColumnThen = {};
        if (c.width !== null) then.width = c.width;
        if (c.position !== null) then.position = c.position;
        if (c.statusOptions && c.type === 'status') then.statusOptions = c.statusOptions;
        if (c.isRequired) then.isRequired = true;
        if (c.isHidden) then.isHidden = true;
        return { op: 'createColumn', kind: 'column', key: `column:${c.id}`, oldId: c.id, module: mod.id, body: remappable(body, internal), then } satisfies Step;
      }),
    ),
  );
  const skippedColumns = new Set(cyclic.map((c) => c.id));

  const collections = new Set(tree.collections.map((c) => c.id));
  const tops = byPosition(tree.records.filter((r) => r.parentRecordId === null));
  const restored = new Set<string>();
  const recordThen = (r: BoardRecord): { position?: number; isCompleted?: boolean } => ({
    ...(r.position !== null ? { position: r.position } : {}),
    ...(r.isCompleted ? { isCompleted: true } : {}),
  });
  // Records of a collection are created concurrently; each one's position is then fixed with a PUT.
  phase(
    'records',
    tops.flatMap((r) => {
      if (!r.collectionId || !collections.has(r.collectionId)) {
        notRestored.push({ entity: 'record', id: r.id, label: r.name, reason: 'its collection is not in the snapshot' });
        return [];
      }
      restored.add(r.id);
      count('records');
      return [{ op: 'createRecord', kind: 'record', key: `record:${r.id}`, oldId: r.id, collection: r.collectionId, name: r.name, then: recordThen(r) } satisfies Step];
    }),
  );
  const subs = byPosition(tree.records.filter((r) => r.parentRecordId !== null));
  phase(
    'sub-records',
    subs.flatMap((r) => {
      if (!restored.has(r.parentRecordId!)) {
        notRestored.push({ entity: 'subrecord', id: r.id, label: r.name, reason: 'its parent record is not restored' });
        return [];
      }
      restored.add(r.id);
      count('subRecords');
      return [{ op: 'createSubRecord', kind: 'subrecord', key: `subrecord:${r.id}`, oldId: r.id, parent: r.parentRecordId!, name: r.name, then: recordThen(r) } satisfies Step];
    }),
  );
  if (subs.some((r) => restored.has(r.id))) phase('seeded columns', [{ op: 'pruneSeededColumns', key: `prune:${mod.id}`, module: mod.id }]);

  const recordsById = new Map(tree.records.map((r) => [r.id, r]));
  const columnsById = new Map(tree.columns.map((c) => [c.id, c]));
  phase(
    'cells',
    tree.cells.flatMap((c) => {
      const rec = recordsById.get(c.recordId);
      const col = c.columnId ? columnsById.get(c.columnId) : undefined;
      const label = `${rec?.name ?? c.recordId} · ${col?.name ?? '(deleted column)'}`;
      if (!rec || !restored.has(rec.id)) return [];
      if (!col || skippedColumns.has(col.id)) {
        notRestored.push({ entity: 'cell', id: c.id, label, reason: col ? 'its column is not restored' : 'its column was deleted before the snapshot' });
        return [];
      }
      if (c.value === null) return [];
      const collection = rec.collectionId ?? recordsById.get(rec.parentRecordId ?? '')?.collectionId ?? null;
      if (!collection) return [];
      const value = remappableCell(col.type === 'relation' ? extCell(c.value) : c.value, internal);
      if (col.type === 'relation') {
        for (const m of foreignModules(ext(col.settings))) {
          notRestored.push({ entity: 'cell', id: c.id, label, reason: `relation into module ${moduleName(m)} (${m}), which is not live: record ids kept as they were` });
        }
      }
      count('cells');
      return [{ op: 'createCell', kind: 'cell', key: `cell:${c.id}`, oldId: c.id, record: rec.id, column: col.id, collection, module: mod.id, workspaceId: input.targetWorkspaceId, value } satisfies Step];
    }),
  );

  // One chain per record: the thread keeps its order (oldest first) and parents precede replies;
  // a tombstone is rebuilt by deleting its note after its replies exist.
  const threads = new Map<string, Amendment[]>();
  for (const a of tree.amendments) if (restored.has(a.recordId)) threads.set(a.recordId, [...(threads.get(a.recordId) ?? []), a]);
  for (const a of tree.amendments) {
    if (!restored.has(a.recordId)) notRestored.push({ entity: 'amendment', id: a.id, label: a.message.slice(0, 40), reason: 'its record is not restored' });
  }
  const noteSteps: Step[] = [];
  const tombstones: Step[] = [];
  for (const [recordId, list] of threads) {
    const ids = new Set(list.map((a) => a.id));
    for (const a of threadOrder(list)) {
      if (a.parentId && !ids.has(a.parentId)) {
        notRestored.push({ entity: 'amendment', id: a.id, label: a.message.slice(0, 40), reason: 'it replies to a note missing from the snapshot' });
        continue;
      }
      const author = a.userId ? (input.userNames?.get(a.userId) ?? a.userId) : 'a deleted note';
      const line = attributionLine(input.attribution, author, a.createdAt ?? 'an unknown time');
      const final = withAttribution(a.isDeleted ? '' : a.message, line) || '(deleted note)';
      count('amendments');
      noteSteps.push({
        op: 'createAmendment',
        kind: 'amendment',
        key: `amendment:${a.id}`,
        oldId: a.id,
        chain: recordId,
        record: recordId,
        parent: a.parentId,
        message: a.edited ? `${final} (restoring)` : final,
        ...(a.edited ? { editTo: final } : {}),
      });
      if (a.isDeleted) tombstones.push({ op: 'deleteAmendment', key: `tombstone:${a.id}`, target: a.id, chain: recordId });
    }
  }
  phase('amendments', [...noteSteps, ...tombstones]);

  phase(
    'archival',
    [...tops, ...subs].filter((r) => r.isArchived && restored.has(r.id)).map((r) => ({ op: 'archiveRecord', key: `archive:${r.id}`, target: r.id }) satisfies Step),
  );

  phase(
    'grants',
    (tree.grants ?? []).flatMap((userId) => {
      if (!input.memberIds.has(userId)) {
        notRestored.push({ entity: 'grant', id: userId, label: input.userNames?.get(userId) ?? userId, reason: 'no longer a member of the target workspace' });
        return [];
      }
      count('grants');
      return [{ op: 'grantAccess', key: `grant:${userId}`, workspaceId: input.targetWorkspaceId, userId, module: mod.id } satisfies Step];
    }),
  );

  phase(
    'automations',
    tree.automations.map((a) => {
      count('automations');
      for (const m of foreignModules(ext(a.actions))) {
        notRestored.push({ entity: 'automation', id: a.id, label: a.name, reason: `an action names module ${moduleName(m)} (${m}), which is not live: kept as is` });
      }
      const body = ext({ name: a.name, trigger: a.trigger, conditions: a.conditions, match: a.match, actions: a.actions, isActive: a.isActive });
      return { op: 'createAutomation', kind: 'automation', key: `automation:${a.id}`, oldId: a.id, module: mod.id, body: remappable(body, internal) } satisfies Step;
    }),
  );

  return { moduleId: mod.id, moduleName: mod.name, targetWorkspaceId: input.targetWorkspaceId, phases, counts, notRestored };
}

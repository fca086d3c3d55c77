// What OTHER modules hold that names objects a run makes anew. A rollback recreates a deleted
// column or collection with a new id; `restore module` brings a deleted module back with new ids for
// the module, its collections and its columns. Automations of the workspace's other modules (a
// "create item in board X, collection Y" action, a condition on one of its columns) and their
// relation and reference columns (a relation's `targetModule` and `displayField`, a reference's
// `field`) still name the dead ids: each is re-pointed through the same appliers as the module's own
// (repointColumn, repointAutomation). A column of another module is re-pointed in place only when it
// is a relation column — its cells are links people made, and the module's reference columns go
// `via` its id, so it is never made anew: where the service keeps settings create-only it is declared,
// with what to do. A reference column (computed, no cells) is made anew as the module's own are.
// What names an object that is gone and that this run does not make is declared too.

import type { ServiceClient } from '../../api/port.js';
import type { StateReader } from '../../store/port.js';
import type { Automation, Column, Module } from '../../domain/entities.js';
import { shown } from '../../domain/display-text.js';
import { isWbsyncError } from '../../domain/errors.js';
import type { NotRestored, Step } from './plan-steps.js';
import { columnThen } from './plan-steps.js';
import { collectRefs } from './remap.js';

/** A column or automation that named something the run makes anew, and what the run does about it. */
export interface Repointed {
  entity: 'column' | 'automation';
  id: string;
  name: string;
  /** The recreated objects it names (old ids). */
  names: string[];
  /** A column's type (another module's relation column is declared where settings are create-only). */
  type?: string;
  /** Set when it belongs to another module than the one the run is about (or to the workspace). */
  owner?: { scope: 'module' | 'workspace'; id: string; name: string };
}

/** What the run re-points, and — once run — how each column went (its id now, through the journal). */
export interface RepointReport {
  columns: (Omit<Repointed, 'entity'> & { how: 're-pointed' | 'recreated' | 'pending' | 'not re-pointed'; newId: string | null })[];
  automations: Omit<Repointed, 'entity'>[];
}

const strip = ({ entity: _e, ...rest }: Repointed): Omit<Repointed, 'entity'> => rest;

export function repointReport(repoint: readonly Repointed[], run: { newId: (id: string) => string | undefined; isRefused: (id: string) => boolean } | null): RepointReport {
  return {
    columns: repoint
      .filter((x) => x.entity === 'column')
      .map((x) => {
        if (!run) return { ...strip(x), how: 'pending' as const, newId: null };
        if (run.isRefused(x.id)) return { ...strip(x), how: 'not re-pointed' as const, newId: null };
        // once the plan is applied every step is done or refused; one the journal does not map was
        // re-pointed in place by a killed invocation (the service took it, the journal never heard)
        const now = run.newId(x.id) ?? x.id;
        return { ...strip(x), how: now === x.id ? ('re-pointed' as const) : ('recreated' as const), newId: now };
      }),
    automations: repoint.filter((x) => x.entity === 'automation').map(strip),
  };
}

/**
 * What a run re-points, over all its invocations: a run killed midway and resumed re-reads the
 * service, where what it already re-pointed no longer names the old ids, so the first invocation
 * keeps its list with the run (`options.repoint`, written when the run starts) and a resumed one
 * reports that list and what its own plan adds.
 */
export function acrossInvocations(repoint: readonly Repointed[], previous: { status: string; options: Record<string, unknown> } | null): Repointed[] {
  const earlier = previous && previous.status !== 'complete' && Array.isArray(previous.options['repoint']) ? (previous.options['repoint'] as Repointed[]) : [];
  const seen = new Set(earlier.map((x) => `${x.entity}:${x.id}`));
  return [...earlier, ...repoint.filter((x) => !seen.has(`${x.entity}:${x.id}`))];
}

/** The live objects of the workspace's other modules that may name the run's objects. */
export interface ForeignObjects {
  modules: { id: string; name: string }[];
  columns: Column[];
  automations: Automation[];
  /** Names of modules the key could not read (private, or gone meanwhile). */
  unread: string[];
}

/** Reads (only) the live columns of both scopes and the automations of every module but `except`;
 * `workspaceId` adds the workspace's own automations (a rollback reads those with its module). */
export async function readForeign(client: ServiceClient, modules: readonly Module[], except: string, workspaceId?: string): Promise<ForeignObjects> {
  const others = modules.filter((m) => m.id !== except);
  const per = await Promise.all(
    others.map(async (m) => {
      try {
        const [rec, sub, autos] = await Promise.all([client.listColumns(m.id, 'record'), client.listColumns(m.id, 'subrecord'), client.listModuleAutomations(m.id)]);
        return { columns: [...rec, ...sub], automations: autos, unread: null };
      } catch (e) {
        // a private module the key cannot open, or one deleted meanwhile: named, not fatal
        if (isWbsyncError(e) && (e.code === 'forbidden' || e.code === 'not_found')) return { columns: [], automations: [], unread: m.name };
        throw e;
      }
    }),
  );
  const ws = workspaceId ? await client.listWorkspaceAutomations(workspaceId) : [];
  return {
    modules: others.map((m) => ({ id: m.id, name: m.name })),
    columns: per.flatMap((p) => p.columns),
    automations: [...per.flatMap((p) => p.automations), ...ws],
    unread: per.flatMap((p) => (p.unread === null ? [] : [p.unread])),
  };
}

/** The same objects as a snapshot holds them (the console's preview, which never calls the service):
 * the columns of both scopes and the automations of every module of the workspace but `except`. */
export function foreignFromState(state: StateReader, workspaceId: string, except: string): ForeignObjects {
  const others = state.modules(workspaceId).filter((m) => m.id !== except);
  return {
    modules: others.map((m) => ({ id: m.id, name: m.name })),
    columns: others.flatMap((m) => state.columns(m.id)),
    automations: others.flatMap((m) => state.moduleAutomations(m.id)),
    unread: [],
  };
}

/** The warning for modules whose columns and automations could not be read (nothing re-pointed there). */
export function unreadWarning(f: ForeignObjects | undefined): string[] {
  if (!f?.unread.length) return [];
  return [`could not read the columns and automations of ${f.unread.length} other module(s) (${f.unread.map((n) => shown(n)).join(', ')}: the key cannot open them): anything there naming what this run makes anew is not re-pointed — check them`];
}

export interface ForeignPlan {
  columns: Step[];
  automations: Step[];
  repoint: Repointed[];
  notRestored: NotRestored[];
}

export interface ForeignInput {
  foreign: ForeignObjects;
  /** Old ids the run makes anew (the journal maps each onto its copy). */
  made: ReadonlySet<string>;
  /** Old ids that are gone and that the run does not make, with a readable label. */
  dead: ReadonlyMap<string, string>;
  /** Whose objects these are, for the advice ("module Sales Pipeline"). */
  subject: string;
  /** Why an object is left naming a dead id, and what to do (end of the declaration's reason). */
  deadAdvice: string;
}

/** Steps re-pointing the other modules' columns and automations at what the run makes anew. */
export function planForeignRepoint(input: ForeignInput): ForeignPlan {
  const out: ForeignPlan = { columns: [], automations: [], repoint: [], notRestored: [] };
  const moduleName = new Map(input.foreign.modules.map((m) => [m.id, m.name]));
  const declareDead = (entity: 'column' | 'automation', id: string, label: string, value: unknown): void => {
    for (const x of collectRefs(value, new Set(input.dead.keys()))) {
      out.notRestored.push({ entity, id, label, reason: `names ${input.dead.get(x)} (${x}) of ${input.subject}, which is gone and not made by this run: it still names the dead id (${input.deadAdvice})` });
    }
  };
  for (const c of input.foreign.columns) {
    const owner = { scope: 'module' as const, id: c.moduleId, name: moduleName.get(c.moduleId) ?? c.moduleId };
    const label = `${owner.name} › ${c.name}`;
    const settings = c.settings ?? {};
    declareDead('column', c.id, label, settings);
    const refs = collectRefs(settings, input.made);
    if (!refs.length) continue;
    out.repoint.push({ entity: 'column', id: c.id, name: c.name, type: c.type, names: refs, owner });
    out.columns.push({
      op: 'repointColumn',
      kind: 'column',
      key: `repoint-column:${c.id}`,
      oldId: c.id,
      module: c.moduleId,
      foreign: true,
      ...(c.type === 'relation'
        ? { inPlaceOnly: `settings not taken (the service keeps them create-only), and a relation column of another module is not made anew (its cells are links people made; that module's reference columns go via its id): it still names the dead id — in module ${owner.name}, point column ${c.name} at ${input.subject} again by hand` }
        : {}),
      target: c.id,
      settings: { value: settings, refs },
      body: {},
      remake: { name: c.name, type: c.type, scope: c.scope },
      then: columnThen(c),
      label,
    });
  }
  for (const a of input.foreign.automations) {
    const owner = a.scope === 'module' && a.moduleId ? { scope: 'module' as const, id: a.moduleId, name: moduleName.get(a.moduleId) ?? a.moduleId } : { scope: 'workspace' as const, id: a.workspaceId, name: 'the workspace' };
    const body = { trigger: a.trigger, conditions: a.conditions, actions: a.actions };
    declareDead('automation', a.id, `${owner.name} › ${a.name}`, body);
    const refs = collectRefs(body, input.made);
    if (!refs.length) continue;
    out.repoint.push({ entity: 'automation', id: a.id, name: a.name, names: refs, owner });
    out.automations.push({ op: 'repointAutomation', key: `repoint-automation:${a.id}`, target: a.id, scope: a.scope, owner: owner.id, refs, label: `${owner.name} › ${a.name}` });
  }
  return out;
}

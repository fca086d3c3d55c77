// Checks a module read cannot make on its own after a rollback: that references resolve as they did
// (a reference column whose `via` names a dead relation column reads the same id-for-id, but
// resolves to nothing), and that no automation or column setting still names an object of the module
// that is gone (translated through the id map, a dead id and a re-pointed one look alike).

import type { RunningEmulator } from '../../src/emulator/types.js';
import { api, dumpOf } from './harness.js';
import { idsOf, translateIds } from './module-compare.js';
import { readModule, type ModuleView } from './module-snapshot.js';

type Resolved = Record<string, Record<string, { items: unknown[]; display: string }>>;

/** The resolved reference view of a module, ids translated back through `newToOld`. */
export async function readReferences(emu: RunningEmulator, moduleId: string, newToOld: ReadonlyMap<string, string> = new Map()): Promise<Resolved> {
  const res = await api(emu, 'GET', `/record-values/references/${moduleId}`);
  if (res.status !== 200) throw new Error(`references of ${moduleId}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
  return translateIds((res.body?.references ?? {}) as Resolved, newToOld);
}

const ID = /\b[0-9a-f]{24}\b/g;

/**
 * Ids of objects of the module in `good` that the module's and the workspace's automations, the
 * module's column settings or its cells (relation cells) name now although no such object is live:
 * "what points at nothing". `exceptColumns`: columns whose settings are declared beyond repair
 * (they still name the dead id, and say so).
 */
export async function deadIdsIn(emu: RunningEmulator, moduleId: string, good: ModuleView, exceptColumns: ReadonlySet<string> = new Set()): Promise<string[]> {
  const now = await readModule(emu, moduleId);
  const was = idsOf(good);
  const live = idsOf(now);
  const d = dumpOf(emu);
  const holders: Array<[string, unknown]> = [
    ...d.automations.filter((a) => !a.isDeleted && (a.module === moduleId || (a.module === null && a.workspace === good.workspaceId))).map((a) => [`automation "${a.name}"`, { trigger: a.trigger, conditions: a.conditions, actions: a.actions }] as [string, unknown]),
    ...[...now.columns.record, ...now.columns.subrecord].filter((c) => !exceptColumns.has(c.id)).map((c) => [`column "${String(c.fields.name)}"`, c.fields.settings] as [string, unknown]),
    ...Object.values(now.cells).flat().map((c) => [c.label, c.value] as [string, unknown]),
  ];
  const out: string[] = [];
  for (const [who, body] of holders) {
    for (const id of JSON.stringify(body ?? null).match(ID) ?? []) if (was.has(id) && !live.has(id)) out.push(`${who} names ${id}, which is gone`);
  }
  return out;
}

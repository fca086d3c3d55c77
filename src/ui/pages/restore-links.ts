// The link between a module wbsync restored and its copy, both ways, from the restore journal:
// "restored as …" on the deleted module, "restored from … (snapshot #N)" on the copy.

import { moduleRestorePairs, type ModuleRestorePair } from '../../restore/index.js';
import { when, type ConsoleEnv } from '../env.js';
import { clip, html, type Html } from '../html.js';

export interface RestoreLinks {
  /** Copies restores made of this module, newest first. */
  restoredAs: ModuleRestorePair[];
  /** The restore that made this module, when it is a copy. */
  restoredFrom: ModuleRestorePair | null;
}

export function restoreLinksOf(pairs: readonly ModuleRestorePair[], moduleId: string): RestoreLinks {
  return { restoredAs: pairs.filter((p) => p.oldModuleId === moduleId), restoredFrom: pairs.find((p) => p.newModuleId === moduleId) ?? null };
}

export function allRestorePairs(env: ConsoleEnv): ModuleRestorePair[] {
  return moduleRestorePairs(env.store.db);
}

/** A paragraph with both links (empty when this module has neither); `namesOf` is read only then. */
export function restoreLinksHtml(env: ConsoleEnv, moduleId: string, namesOf: () => ReadonlyMap<string, string>, pairs = allRestorePairs(env)): Html | '' {
  const l = restoreLinksOf(pairs, moduleId);
  if (!l.restoredFrom && !l.restoredAs.length) return '';
  const names = namesOf();
  const name = (id: string): string => (names.has(id) ? clip(names.get(id)!, 80) : 'a module no snapshot holds yet');
  const recover = (id: string, snapshot?: number): string => `${env.base}/recover?module=${encodeURIComponent(id)}${snapshot === undefined ? '' : `&snapshot=${snapshot}`}`;
  return html`<p class="restore-links">${l.restoredFrom
    ? html`<span class="pill info">restored from</span> <a href="${recover(l.restoredFrom.oldModuleId, l.restoredFrom.snapshotId)}">${name(l.restoredFrom.oldModuleId)}</a> as of snapshot #${l.restoredFrom.snapshotId} (<span class="mono">${l.restoredFrom.oldModuleId}</span>, restore run ${l.restoredFrom.runId}, ${when(l.restoredFrom.finishedAt)}) `
    : ''}${l.restoredAs.map(
    (p) => html`<span class="pill ok">restored as</span> <a href="${recover(p.newModuleId)}">${name(p.newModuleId)}</a> from snapshot #${p.snapshotId} (<span class="mono">${p.newModuleId}</span>, restore run ${p.runId}, ${when(p.finishedAt)}) `,
  )}</p>`;
}

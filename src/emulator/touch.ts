// Change signals: which writes move a module's and a workspace's `updatedAt`. The observed server
// does not move them for automation-engine writes; the spec dialect moves them for every write.

import type { ModuleDoc } from './docs.js';
import type { World } from './world.js';
import type { Actor } from './actor.js';

export function touchModule(w: World, actor: Actor, mod: ModuleDoc, at: string): void {
  if (w.rules.observed && actor.automation) return;
  mod.updatedAt = at;
  touchWorkspace(w, actor, mod.workspace, at);
}

export function touchWorkspace(w: World, actor: Actor, workspaceId: string, at: string): void {
  if (w.rules.observed && actor.automation) return;
  const ws = w.state.workspaces.get(workspaceId);
  if (ws) ws.updatedAt = at;
}

export function displayName(name: unknown): string {
  if (typeof name === 'string') return name;
  if (name === null || name === undefined) return '';
  try {
    return typeof name === 'object' ? JSON.stringify(name) : String(name);
  } catch {
    return '';
  }
}

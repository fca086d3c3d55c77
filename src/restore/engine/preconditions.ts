// What every command that restores through the journal checks and takes before it plans: its
// dependencies, how the run goes, the snapshot it reads, and who may write. Refusals (exit 6) come
// first and read only; nothing is written until they pass.
//
// Who may restore: the key's user must be an owner or admin of the target workspace. The port has
// no "who am I", so this is probed read-only: GET /module-access/{ws}/{member} answers owners and
// admins only (403 otherwise) in both dialects. A member or guest could make only a partial copy
// (visibility and grants need owner/admin), so they are refused rather than half-served.

import type { ServiceClient } from '../../api/port.js';
import type { Logger } from '../../config/logger.js';
import type { Member } from '../../domain/entities.js';
import { WbsyncError, isWbsyncError } from '../../domain/errors.js';
import type { Store } from '../../store/port.js';

export interface RestoreDeps {
  client: ServiceClient;
  store: Store;
  logger?: Logger;
}

/** How a journaled run goes: what every command that writes through the applier takes. */
export interface RunControls {
  /** config.restore.attribution */
  attribution: string;
  parallel?: number;
  /** Wait before automations are created and paused ones re-activated, so the service's asynchronous
   * runs of the run's own writes find them still absent or paused. Default 250 ms. */
  settleMs?: number;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

export function refuse(message: string, hint?: string, details?: Record<string, unknown>): WbsyncError {
  return new WbsyncError('restore_refused', message, { hint, details });
}

/**
 * The snapshot to read: the one asked for (it must hold the object), the newest complete one
 * finished at or before a time (`atOrBefore`, ISO 8601), or — neither given — the latest holding it.
 */
export function chooseSnapshot(store: Store, kind: 'workspace' | 'module' | 'record', id: string, asked: number | { atOrBefore: string } | undefined): number {
  const holding = store.snapshotsHolding(kind, id);
  if (typeof asked === 'object') {
    const at = Date.parse(asked.atOrBefore);
    const fit = store
      .listSnapshots()
      .filter((s) => s.status === 'complete' && holding.includes(s.id) && s.finishedAt !== null && Date.parse(s.finishedAt) <= at)
      .sort((a, b) => b.id - a.id)[0];
    if (!fit) throw refuse(`no complete snapshot holding ${kind} ${id} finished at or before ${asked.atOrBefore}`, "run 'wbsync snapshots' to see what was backed up", { snapshotsHolding: holding });
    return fit.id;
  }
  if (asked !== undefined) {
    if (!holding.includes(asked)) {
      throw refuse(
        `snapshot ${asked} does not hold ${kind} ${id}`,
        holding.length ? `snapshots holding it: ${holding.join(', ')}` : `no snapshot holds ${kind} ${id}`,
        { snapshotsHolding: holding },
      );
    }
    return asked;
  }
  if (!holding.length) throw refuse(`no snapshot holds ${kind} ${id}`, "run 'wbsync snapshots' to see what was backed up", { snapshotsHolding: [] });
  return Math.max(...holding);
}

/** Refuses (exit 6, nothing written) unless the key's user is an owner or admin of `workspaceId`. */
export async function requireWritable(client: ServiceClient, workspaceId: string): Promise<Member[]> {
  const visible = await client.listWorkspaces();
  if (!visible.some((w) => w.id === workspaceId)) {
    throw refuse(`workspace ${workspaceId} is not writable by this key: its user is not a member`, 'restore into a workspace the key belongs to (--workspace)');
  }
  const members = await client.listMembers(workspaceId);
  const probe = members[0];
  try {
    if (probe) await client.getModuleAccess(workspaceId, probe.userId);
  } catch (e) {
    if (isWbsyncError(e) && e.code === 'forbidden') {
      throw refuse(`workspace ${workspaceId} is not writable by this key: restoring needs an owner or admin`, 'ask an owner to restore, or to make this user an admin');
    }
    throw e;
  }
  return members;
}

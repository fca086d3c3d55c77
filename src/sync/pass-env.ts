// What one workspace's sync needs from its pass, and what it reports back.
import { commandLine } from '../domain/shell-command.js';
import type { ServiceClient } from '../api/port.js';
import type { Logger } from '../config/logger.js';
import type { Store, WriteBatch } from '../store/port.js';

export interface FreshnessClock {
  /** The window within which every part is read in full again (freshness.maxStalenessMinutes). */
  windowMs: number;
  /** Start of this pass's snapshot (the time verification marks carry). */
  nowMs: number;
  /** Start of the previous complete pass, or null. */
  lastPassMs: number | null;
}

export interface PassEnv {
  client: ServiceClient;
  store: Store;
  snapshotId: number;
  logger: Logger;
  /** Bounds the modules crawled at once, so memory follows the largest module, not the workspace. */
  limitModules: <T>(fn: () => Promise<T>) => Promise<T>;
  apply: (batch: WriteBatch) => Promise<void>;
  onModuleDone: (records: number) => void;
  onModulesPlanned: (count: number) => void;
  /** Parallel time slices for reading a whole feed (about the requests in flight). */
  feedSlices: number;
  /** Rolling re-verification of incremental passes; absent: none. */
  freshness?: FreshnessClock;
  signal?: AbortSignal;
  /** Record a workspace losing everything at once as gone (wbsync sync --accept-loss); else held. */
  acceptLoss?: boolean;
  /** The pass's last workspace: a whole-feed read's last batch has the activity and cell tables'
   * deferred indexes built (a first fill), while the module crawl still runs — no later feed row
   * is written, and later cells are inserted with their indexes in place. */
  feedIndexesBack?: boolean;
}

/** Everything a workspace held, vanished at once (the likeliest cause: the key lost access): the
 * pass marks none of it gone, fails that part and the tripwire holds and alerts. */
export interface HeldLoss {
  workspaceId: string;
  name: string;
  modules: number;
  records: number;
  reason: string;
}

export const ACCEPT_LOSS_HINT = `if the key lost access, give it back and the next pass carries on; if it was deleted on purpose, '${commandLine(['wbsync', 'sync', '--accept-loss'])}' records it as gone`;

/** The loss, when `vanished` is everything the workspace held and the service lists nothing of it. */
export function lossOf(ws: { id: string; name: string }, vanished: readonly string[], sizes: ReadonlyMap<string, { records: number }>, reason: string): HeldLoss | null {
  if (vanished.length === 0) return null;
  return { workspaceId: ws.id, name: ws.name, modules: vanished.length, records: vanished.reduce((n, id) => n + (sizes.get(id)?.records ?? 0), 0), reason };
}

export interface PartFailure {
  workspaceId: string;
  moduleId?: string;
  moduleName?: string;
  reason: string;
}

export interface Reverification {
  /** Modules read in full by this incremental pass because they were due. */
  modules: string[];
  /** The workspace's own lists (members, workspace automations, grants) read in full. */
  workspace: boolean;
  /** Calls spent on it. */
  requests: number;
  /** Requests the budget allowed; a part past due is read whatever the budget. */
  budget: number;
  /** Age of the least recently verified part when the pass began. */
  oldestAgeSeconds: number;
}

export interface WorkspaceOutcome {
  workspaceId: string;
  mode: 'full' | 'incremental';
  /** Why an incremental pass fell back to a full crawl. */
  fallback?: string;
  modulesCrawled: number;
  activityRows: number;
  /** Requests spent reading records outside every listing (archived or deleted ones). */
  recordProbes: number;
  reverified?: Reverification;
  failures: PartFailure[];
  /** Everything it held vanished at once: held, nothing marked gone. */
  held?: HeldLoss;
}

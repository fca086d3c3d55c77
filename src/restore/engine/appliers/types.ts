// One applier per step kind: what the step sends, how a create that may already have happened is
// found again, and the writes that follow a create. The engine (../apply.ts) owns the journal,
// ordering, concurrency and failure rules; an applier only talks to the service.

import type { CallOptions, ServiceClient } from '../../../api/port.js';
import { isWbsyncError } from '../../../domain/errors.js';
import type { Step, StepOp } from '../plan-steps.js';

export interface StepContext {
  client: ServiceClient;
  /** Old id → new id through the journal (throws when the object was never made). */
  resolve: (oldId: string) => string;
  /** A workspace id: the one this run created for an old id, else the id itself (a live workspace). */
  workspace: (id: string) => string;
  /** Whether a new id already stands for some old object (a lookup must not claim it twice). */
  isClaimed: (newId: string) => boolean;
  call: CallOptions;
}

/** What a create returned: the new object as the client normalised it. */
export type Created = { id: string } & Record<string, unknown>;

export interface StepApplier<S extends Step = Step> {
  /** Creates only: sends the create. */
  create?: (step: S, ctx: StepContext) => Promise<Created>;
  /** Creates only: the new id of the object `create` would make, if the service already holds one
   * that no other old id has claimed; null when absent. */
  lookUp?: (step: S, ctx: StepContext) => Promise<string | null>;
  /** The writes after the create (`created` is null when an earlier run or a lookup made it), or
   * the whole of a step that creates nothing. */
  finish?: (step: S, created: Created | null, ctx: StepContext) => Promise<void>;
}

export type Appliers = { [K in StepOp]: StepApplier<Extract<Step, { op: K }>> };

/** Fields of `want` whose value differs on `got` (null got = unknown: all of them). */
export function differing<T extends object>(want: T, got: Record<string, unknown> | null): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(want)) {
    if (!got || JSON.stringify(got[k]) !== JSON.stringify(v)) out[k] = v;
  }
  return out as Partial<T>;
}

/** The first object of `list` matching and not claimed yet. */
export function firstUnclaimed<T extends { id: string }>(list: T[], match: (x: T) => boolean, ctx: StepContext): string | null {
  return list.find((x) => match(x) && !ctx.isClaimed(x.id))?.id ?? null;
}

/** Runs a delete; one that finds its object gone already (a run that crashed before noting it did
 * the delete) is done, any other failure is not. */
export async function deleteOnce(run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (e) {
    if (!(isWbsyncError(e) && e.code === 'not_found')) throw e;
  }
}

export function asCreated(obj: unknown): Created {
  return obj as Created;
}

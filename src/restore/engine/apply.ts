// The applier engine: runs a restore plan against the service, phase by phase, recording every
// created object in the journal the moment its create returns. Re-running it with the same journal
// skips what is done; a create that may have happened (unknown outcome, or in flight at a crash) is
// looked up under its new parent before it is sent again, at a moment when no sibling create is in
// flight (so a lookup cannot claim an object another step is still creating). What each step sends
// lives in ./appliers; this file owns the order, the concurrency and the failure rules:
// - a write the service refuses (4xx other than 401/408/429) is recorded with its reason and the
//   run goes on; steps that need the object it would have made are recorded too, not sent;
// - anything else (the service unreachable or failing after the client's retries, the key
//   rejected, an abort) stops the run, resumably.

import PQueue from 'p-queue';
import type { ServiceClient } from '../../api/port.js';
import { WbsyncError, isWbsyncError } from '../../domain/errors.js';
import { applierFor, type Created, type StepContext } from './appliers/index.js';
import type { RunJournal } from '../../store/ledgers/index.js';
import type { NotRestored, Phase, RestorePlan, Step } from './plan-steps.js';

export interface ApplyEnv {
  client: ServiceClient;
  journal: RunJournal;
  /** Chains in flight at once inside a phase; the client's own queue bounds requests. */
  parallel?: number;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
  /** Awaited before a phase with work left (e.g. to let the service's automation runs settle). */
  beforePhase?: (phase: Phase) => Promise<void>;
}

export interface ApplyResult {
  newModuleId: string | null;
  /** Objects created by this invocation, per kind (resumed runs count only what they made). */
  created: Record<string, number>;
  /** Objects found by a lookup after an unknown outcome instead of being created again. */
  foundByLookup: number;
  /** Writes the service refused in this run (earlier invocations included), with their reasons. */
  refused: NotRestored[];
}

type CreateStep = Extract<Step, { oldId: string }>;

const NOT_REFUSALS = new Set([401, 408, 429]);

/** A 4xx about this one write (or a write the service answered but did not take): the service will
 * refuse it again, and nothing else depends on it. */
export function isRefusal(e: unknown): e is WbsyncError {
  if (isWbsyncError(e) && e.details?.['notTaken'] === true) return true;
  return isWbsyncError(e) && e.code !== 'auth' && e.status !== undefined && e.status >= 400 && e.status < 500 && !NOT_REFUSALS.has(e.status);
}

function isUnknownOutcome(e: unknown): boolean {
  return isWbsyncError(e) && e.details?.['outcomeUnknown'] === true;
}

class DeferredChain extends Error {
  constructor(readonly rest: Step[]) {
    super('deferred');
  }
}

/** A step needs an object whose create the service refused. */
class DependencyRefused extends Error {
  constructor(readonly oldId: string) {
    super(`needs ${oldId}, which the service refused to create`);
  }
}

/** What a refusal entry says about a step: the entity, its old id and a readable label. */
function describe(step: Step): Omit<NotRestored, 'reason'> {
  switch (step.op) {
    case 'createWorkspace':
      return { entity: 'workspace', id: step.oldId, label: step.name };
    case 'addMember':
      return { entity: 'member', id: step.userId, label: step.label };
    case 'createWorkspaceAutomation':
      return { entity: 'automation', id: step.oldId, label: step.body.value.name };
    case 'createModule':
      return { entity: 'module', id: step.oldId, label: step.name };
    case 'updateModule':
      return { entity: 'module', id: step.module, label: `settings ${Object.keys(step.body).join(', ')}` };
    case 'createCollection':
      return { entity: 'collection', id: step.oldId, label: step.body.name };
    case 'createColumn':
      return { entity: 'column', id: step.oldId, label: step.body.value.name };
    case 'pruneSeededColumns':
      return { entity: 'column', id: step.module, label: 'sub-record columns the service seeded' };
    case 'createRecord':
      return { entity: 'record', id: step.oldId, label: step.name };
    case 'createSubRecord':
      return { entity: 'subrecord', id: step.oldId, label: step.name };
    case 'createCell':
      return { entity: 'cell', id: step.oldId, label: step.label ?? `${step.record} · ${step.column}`, value: step.value.value };
    case 'createAmendment':
      return { entity: 'amendment', id: step.oldId, label: step.message.slice(0, 40) };
    case 'deleteAmendment':
      return { entity: 'amendment', id: step.target, label: 'tombstone of a deleted amendment' };
    case 'archiveRecord':
    case 'unarchiveRecord':
      return { entity: 'record', id: step.target, label: step.op === 'archiveRecord' ? 'archived flag' : 'un-archive' };
    case 'grantAccess':
      return { entity: 'grant', id: step.userId, label: `module access for ${step.userId}` };
    case 'createAutomation':
      return { entity: 'automation', id: step.oldId, label: step.body.value.name };
    case 'setCell':
      return { entity: 'cell', id: step.target, label: step.label, value: step.value.value };
    case 'clearCell':
      return { entity: 'cell', id: step.target, label: step.label };
    case 'updateRecord':
      return { entity: 'record', id: step.target, label: step.label };
    case 'updateColumn':
      return { entity: 'column', id: step.target, label: step.label };
    case 'updateCollection':
      return { entity: 'collection', id: step.target, label: step.label };
    case 'updateAmendment':
      return { entity: 'amendment', id: step.target, label: step.label };
    case 'repointColumn':
      return { entity: 'column', id: step.oldId, label: `${step.label}: settings re-pointed` };
    case 'repointAutomation':
      return { entity: 'automation', id: step.target, label: `${step.label}: re-pointed` };
  }
}

export async function applyPlan(plan: RestorePlan, env: ApplyEnv): Promise<ApplyResult> {
  const run = new PlanRun(plan, env);
  for (const phase of plan.phases) {
    if (env.beforePhase && phase.steps.some((s) => !env.journal.isDone(s.key))) await env.beforePhase(phase);
    await run.phase(phase);
  }
  return run.result(plan.moduleId);
}

/** One invocation of a plan: what it created and found, its progress, and the rules of each phase. */
class PlanRun {
  private readonly journal: RunJournal;
  private readonly ctx: StepContext;
  private readonly created: Record<string, number> = {};
  private foundByLookup = 0;
  private readonly total: number;
  private done = 0;

  constructor(
    plan: RestorePlan,
    private readonly env: ApplyEnv,
  ) {
    this.journal = env.journal;
    this.total = plan.phases.reduce((n, p) => n + p.steps.length, 0);
    const journal = env.journal;
    this.ctx = { client: env.client, resolve: this.resolve, workspace: (id) => journal.newId(id) ?? id, isClaimed: (id) => journal.isClaimed(id), call: { signal: env.signal } };
  }

  result(moduleId: string): ApplyResult {
    return { newModuleId: this.journal.newId(moduleId) ?? null, created: this.created, foundByLookup: this.foundByLookup, refused: this.journal.refusals() };
  }

  /** A phase: creates a crash may have made are looked up first, then the chains run concurrently,
   * then the chains set aside one at a time. */
  async phase(phase: Phase): Promise<void> {
    await this.lookUpInterrupted(phase);
    const deferred = await this.runChains(phase);
    await this.runDeferred(deferred);
  }

  /** The new id of an object the plan needs (its create refused: the step that needs it is too). */
  private readonly resolve = (oldId: string): string => {
    const id = this.journal.newId(oldId);
    if (id !== undefined) return id;
    if (this.journal.isRefused(oldId)) throw new DependencyRefused(oldId);
    throw new WbsyncError('internal', `restore: ${oldId} is needed before it was created`);
  };

  private tick(): void {
    this.done += 1;
    this.env.onProgress?.(this.done, this.total);
  }

  /** 1. Creates that may have happened before a crash: look them up while nothing is in flight. */
  private async lookUpInterrupted(phase: Phase): Promise<void> {
    for (const step of phase.steps) {
      if ('oldId' in step && this.journal.isPending(step.oldId) && this.journal.newId(step.oldId) === undefined) await this.lookUpOrRefuse(step);
    }
  }

  /** 2. Chains concurrently; a chain that met an unknown outcome is set aside (returned). */
  private async runChains(phase: Phase): Promise<Step[][]> {
    const chains = new Map<string, Step[]>();
    for (const s of phase.steps) {
      const k = s.chain ?? s.key;
      chains.set(k, [...(chains.get(k) ?? []), s]);
    }
    const queue = new PQueue({ concurrency: this.env.parallel ?? 32 });
    const deferred: Step[][] = [];
    const failures: unknown[] = [];
    await Promise.all(
      [...chains.values()].map((chain) =>
        queue.add(async () => {
          try {
            await this.runChain(chain);
          } catch (e) {
            if (e instanceof DeferredChain) deferred.push(e.rest);
            else failures.push(e);
          }
        }),
      ),
    );
    if (failures.length) throw failures[0];
    return deferred;
  }

  /** 3. Set-aside chains one at a time: look up first, create only if absent. */
  private async runDeferred(deferred: Step[][]): Promise<void> {
    for (const chain of deferred) {
      const [first, ...rest] = chain;
      if ('oldId' in first && this.journal.newId(first.oldId) === undefined) await this.lookUpOrRefuse(first);
      await this.runStep(first, false);
      for (const s of rest) await this.runStep(s, false);
    }
  }

  private async runChain(chain: Step[]): Promise<void> {
    for (const [i, step] of chain.entries()) {
      try {
        await this.runStep(step, true);
      } catch (e) {
        if (e instanceof DeferredChain) throw new DeferredChain(chain.slice(i));
        throw e;
      }
    }
  }

  private async runStep(step: Step, allowUnknown: boolean): Promise<void> {
    if (this.env.signal?.aborted) throw new WbsyncError('internal', 'restore interrupted', { details: { interrupted: true } });
    if (this.journal.isDone(step.key)) return this.tick();
    try {
      const obj = 'oldId' in step ? await this.create(step, allowUnknown) : null;
      if (step.op === 'createModule') this.journal.setNewModule(this.resolve(step.oldId));
      await applierFor(step).finish?.(step, obj, this.ctx);
      this.journal.stepDone(step.key);
    } catch (e) {
      if (e instanceof DependencyRefused || isRefusal(e)) this.refuse(step, e);
      else throw e;
    }
    this.tick();
  }

  /** Sends the create; the new object (null when it was found or made by an earlier run). */
  private async create(step: CreateStep, allowUnknown: boolean): Promise<Created | null> {
    if (this.journal.newId(step.oldId) !== undefined) return null;
    this.journal.intend(step.kind, step.oldId);
    let obj: Created;
    try {
      obj = await applierFor(step).create!(step, this.ctx);
    } catch (e) {
      if (isUnknownOutcome(e) && allowUnknown) throw new DeferredChain([]);
      throw e;
    }
    this.journal.created(step.kind, step.oldId, obj.id);
    // a live object re-pointed in place keeps its id: nothing was created
    if (obj.id !== step.oldId) this.created[step.kind] = (this.created[step.kind] ?? 0) + 1;
    return obj;
  }

  private refuse(step: Step, e: WbsyncError | DependencyRefused): void {
    // A refused module means there is nothing to restore into: that stops the run.
    if (step.op === 'createModule' || step.op === 'createWorkspace') throw e;
    const made = 'oldId' in step && this.journal.newId(step.oldId) !== undefined;
    // a live column kept in place (its re-pointing refused): nothing was created, but it is refused
    const kept = made && step.op === 'repointColumn' && this.journal.newId(step.oldId) === step.oldId;
    const reason =
      e instanceof DependencyRefused
        ? `not sent: it needs ${e.oldId}, which the service refused`
        : `${made && !kept ? 'created, but a follow-up write was refused' : 'the service refused it'}: ${e.message}`;
    const entry: NotRestored = { ...describe(step), reason, ...(e instanceof WbsyncError && e.status !== undefined ? { status: e.status } : {}) };
    this.journal.refused(step.key, 'oldId' in step && (!made || kept) ? step.oldId : null, entry);
  }

  /** A lookup whose parent the service refused to create finds nothing: the step itself says so. */
  private async lookUpOrRefuse(step: CreateStep): Promise<void> {
    try {
      await this.lookUp(step);
    } catch (e) {
      if (!(e instanceof DependencyRefused)) throw e;
    }
  }

  private async lookUp(step: CreateStep): Promise<boolean> {
    const found = await applierFor(step).lookUp!(step, this.ctx);
    if (found === null) return false;
    this.journal.created(step.kind, step.oldId, found);
    this.foundByLookup += 1;
    return true;
  }
}

// The applier: runs a restore plan against the service, phase by phase, recording every created
// object in the journal the moment its create returns. Re-running it with the same journal skips
// what is done; a create that may have happened (unknown outcome, or in flight at a crash) is
// looked up under its new parent before it is sent again, at a moment when no sibling create is
// in flight (so a lookup cannot claim an object another step is still creating).

import PQueue from 'p-queue';
import type { ServiceClient } from '../api/port.js';
import { WbsyncError, isWbsyncError } from '../domain/errors.js';
import type { RunJournal } from './journal.js';
import { lookUpCreated } from './lookup.js';
import type { ColumnThen, Phase, RestorePlan, Step } from './plan-steps.js';
import { resolveCell, resolveRefs } from './remap.js';

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
  newModuleId: string;
  /** Objects created by this invocation, per kind (resumed runs count only what they made). */
  created: Record<string, number>;
  /** Objects found by a lookup after an unknown outcome instead of being created again. */
  foundByLookup: number;
}

type CreateStep = Extract<Step, { oldId: string }>;

function isUnknownOutcome(e: unknown): boolean {
  return isWbsyncError(e) && e.details?.['outcomeUnknown'] === true;
}

/** Fields of `want` whose value differs on `got` (null got = unknown: all of them). */
function differing<T extends object>(want: T, got: Record<string, unknown> | null): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(want)) {
    if (!got || JSON.stringify(got[k]) !== JSON.stringify(v)) out[k] = v;
  }
  return out as Partial<T>;
}

class DeferredChain extends Error {
  constructor(readonly rest: Step[]) {
    super('deferred');
  }
}

export async function applyPlan(plan: RestorePlan, env: ApplyEnv): Promise<ApplyResult> {
  const { client, journal } = env;
  const created: Record<string, number> = {};
  let foundByLookup = 0;
  const total = plan.phases.reduce((n, p) => n + p.steps.length, 0);
  let done = 0;
  const resolve = (oldId: string): string => {
    const id = journal.newId(oldId);
    if (id === undefined) throw new WbsyncError('internal', `restore: ${oldId} is needed before it was created`);
    return id;
  };
  const tick = (): void => {
    done += 1;
    env.onProgress?.(done, total);
  };

  const lookUp = async (step: CreateStep): Promise<boolean> => {
    const found = await lookUpCreated({ client, resolve, isClaimed: (id) => journal.isClaimed(id) }, step);
    if (found === null) return false;
    journal.created(step.kind, step.oldId, found);
    foundByLookup += 1;
    return true;
  };

  /** Sends the create; the new object (null when it was found or made by an earlier run). */
  const create = async (step: CreateStep, allowUnknown: boolean): Promise<Record<string, unknown> | null> => {
    if (journal.newId(step.oldId) !== undefined) return null;
    journal.intend(step.kind, step.oldId);
    let obj: { id: string } & Record<string, unknown>;
    try {
      obj = (await send(step)) as unknown as { id: string } & Record<string, unknown>;
    } catch (e) {
      if (isUnknownOutcome(e) && allowUnknown) throw new DeferredChain([]);
      throw e;
    }
    journal.created(step.kind, step.oldId, obj.id);
    created[step.kind] = (created[step.kind] ?? 0) + 1;
    return obj;
  };

  const send = (step: CreateStep): Promise<unknown> => {
    const o = { signal: env.signal };
    switch (step.op) {
      case 'createModule':
        return client.createModule(step.workspaceId, { name: step.name, ...(step.description ? { description: step.description } : {}), tags: step.tags }, o);
      case 'createCollection':
        return client.createCollection(resolve(step.module), step.body, o);
      case 'createColumn':
        return client.createColumn(resolve(step.module), resolveRefs(step.body, resolve), o);
      case 'createRecord':
        return client.createRecord(resolve(step.collection), { name: step.name }, o);
      case 'createSubRecord':
        return client.createSubRecord(resolve(step.parent), { name: step.name }, o);
      case 'createCell':
        return client.createValue(
          {
            record: resolve(step.record),
            column: resolve(step.column),
            collectionName: resolve(step.collection),
            module: resolve(step.module),
            workspace: step.workspaceId,
            value: resolveCell(step.value, resolve),
          },
          o,
        );
      case 'createAmendment':
        return client.createAmendment(resolve(step.record), { message: step.message, ...(step.parent ? { parentComment: resolve(step.parent) } : {}) }, o);
      case 'createAutomation':
        return client.createModuleAutomation(resolve(step.module), resolveRefs(step.body, resolve), o);
    }
  };

  /** Everything after the create (follow-up PUTs) and the non-create steps. */
  const finish = async (step: Step, obj: Record<string, unknown> | null): Promise<void> => {
    const o = { signal: env.signal };
    switch (step.op) {
      case 'createModule':
        journal.setNewModule(resolve(step.oldId));
        return;
      case 'updateModule':
        await client.updateModule(resolve(step.module), step.body, o);
        return;
      case 'createCollection': {
        const body = differing(step.then, obj);
        if (Object.keys(body).length) await client.updateCollection(resolve(step.oldId), body, o);
        return;
      }
      case 'createColumn': {
        const body: ColumnThen = differing(step.then, obj);
        if (Object.keys(body).length) await client.updateColumn(resolve(step.oldId), body, o);
        return;
      }
      case 'createRecord':
      case 'createSubRecord': {
        const body = differing(step.then, obj);
        if (Object.keys(body).length) await client.updateRecord(resolve(step.oldId), body, o);
        return;
      }
      case 'createAmendment':
        if (step.editTo !== undefined && obj?.['message'] !== step.editTo) await client.updateAmendment(resolve(step.oldId), { message: step.editTo }, o);
        return;
      case 'pruneSeededColumns': {
        // Only columns no step of this run created: the ones the service seeded by itself.
        const cols = await client.listColumns(resolve(step.module), 'subrecord', o);
        for (const c of cols) if (!journal.isClaimed(c.id)) await client.deleteColumn(c.id, o);
        return;
      }
      case 'deleteAmendment':
        try {
          await client.deleteAmendment(resolve(step.target), o);
        } catch (e) {
          if (!(isWbsyncError(e) && e.code === 'not_found')) throw e; // deleted by a run that crashed before noting it
        }
        return;
      case 'archiveRecord':
        await client.updateRecord(resolve(step.target), { isArchived: true }, o);
        return;
      case 'unarchiveRecord':
        await client.updateRecord(resolve(step.target), { isArchived: false }, o);
        return;
      case 'grantAccess': {
        const moduleId = resolve(step.module);
        const rows = await client.getModuleAccess(step.workspaceId, step.userId, o);
        const granted = rows.filter((r) => r.granted).map((r) => r.moduleId);
        if (!granted.includes(moduleId)) await client.putModuleAccess(step.workspaceId, step.userId, [...granted, moduleId], o);
        return;
      }
      case 'createCell':
      case 'createAutomation':
        return;
    }
  };

  const runStep = async (step: Step, allowUnknown: boolean): Promise<void> => {
    if (env.signal?.aborted) throw new WbsyncError('internal', 'restore interrupted', { details: { interrupted: true } });
    if (journal.isDone(step.key)) return tick();
    const obj = 'oldId' in step ? await create(step, allowUnknown) : null;
    await finish(step, obj);
    journal.stepDone(step.key);
    tick();
  };

  const runChain = async (chain: Step[]): Promise<void> => {
    for (const [i, step] of chain.entries()) {
      try {
        await runStep(step, true);
      } catch (e) {
        if (e instanceof DeferredChain) throw new DeferredChain(chain.slice(i));
        throw e;
      }
    }
  };

  const runPhase = async (phase: Phase): Promise<void> => {
    // 1. Creates that may have happened before a crash: look them up while nothing is in flight.
    for (const step of phase.steps) {
      if ('oldId' in step && journal.isPending(step.oldId) && journal.newId(step.oldId) === undefined) await lookUp(step);
    }
    // 2. Chains concurrently; a chain that met an unknown outcome is set aside.
    const chains = new Map<string, Step[]>();
    for (const s of phase.steps) {
      const k = s.chain ?? s.key;
      chains.set(k, [...(chains.get(k) ?? []), s]);
    }
    const queue = new PQueue({ concurrency: env.parallel ?? 32 });
    const deferred: Step[][] = [];
    const failures: unknown[] = [];
    await Promise.all(
      [...chains.values()].map((chain) =>
        queue.add(async () => {
          try {
            await runChain(chain);
          } catch (e) {
            if (e instanceof DeferredChain) deferred.push(e.rest);
            else failures.push(e);
          }
        }),
      ),
    );
    if (failures.length) throw failures[0];
    // 3. Set-aside chains one at a time: look up first, create only if absent.
    for (const chain of deferred) {
      const [first, ...rest] = chain;
      if ('oldId' in first && journal.newId(first.oldId) === undefined) await lookUp(first);
      await runStep(first, false);
      for (const s of rest) await runStep(s, false);
    }
  };

  for (const phase of plan.phases) {
    if (env.beforePhase && phase.steps.some((s) => !journal.isDone(s.key))) await env.beforePhase(phase);
    await runPhase(phase);
  }
  const newModuleId = journal.newId(plan.moduleId);
  if (!newModuleId) throw new WbsyncError('internal', 'restore finished without a module id');
  return { newModuleId, created, foundByLookup };
}

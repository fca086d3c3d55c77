// After a create whose outcome is unknown (timeout, dropped connection, crash mid-request), the
// object may exist. Before creating it again, list its new parent and take an object that matches
// (same name / message / column) and that no other old id has claimed yet.

import type { ServiceClient } from '../api/port.js';
import type { Step } from './plan-steps.js';

export interface LookupEnv {
  client: ServiceClient;
  /** old id → new id, for the parent named by the step. */
  resolve: (oldId: string) => string;
  isClaimed: (newId: string) => boolean;
}

type CreateStep = Extract<Step, { oldId: string }>;

function pick<T extends { id: string }>(list: T[], match: (x: T) => boolean, isClaimed: (id: string) => boolean): string | null {
  return list.find((x) => match(x) && !isClaimed(x.id))?.id ?? null;
}

/** The new id of the object `step` would create, if the service already holds it; else null. */
export async function lookUpCreated(env: LookupEnv, step: CreateStep): Promise<string | null> {
  const { client, resolve, isClaimed } = env;
  switch (step.op) {
    case 'createModule': {
      const list = await client.listModules(step.workspaceId);
      return pick(list, (m) => m.name === step.name, isClaimed);
    }
    case 'createCollection':
      return pick(await client.listCollections(resolve(step.module)), (c) => c.name === step.body.name, isClaimed);
    case 'createColumn': {
      const scope = step.body.value.scope ?? 'record';
      return pick(await client.listColumns(resolve(step.module), scope), (c) => c.name === step.body.value.name, isClaimed);
    }
    case 'createRecord':
      return pick(await client.listRecords(resolve(step.collection)), (r) => r.name === step.name, isClaimed);
    case 'createSubRecord':
      return pick(await client.listSubRecords(resolve(step.parent)), (r) => r.name === step.name, isClaimed);
    case 'createCell': {
      const column = resolve(step.column);
      return pick(await client.listValues(resolve(step.record)), (v) => v.columnId === column, isClaimed);
    }
    case 'createAmendment': {
      const parent = step.parent === null ? null : resolve(step.parent);
      const texts = new Set([step.message, step.editTo]);
      return pick(await client.listAmendments(resolve(step.record)), (a) => texts.has(a.message) && a.parentId === parent, isClaimed);
    }
    case 'createAutomation':
      return pick(await client.listModuleAutomations(resolve(step.module)), (a) => a.name === step.body.value.name, isClaimed);
  }
}

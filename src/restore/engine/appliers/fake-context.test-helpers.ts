// A recording stand-in for the service client, for the appliers' unit tests: every call is noted
// with its arguments and answered from a table (or with the first argument echoed back).

import type { ServiceClient } from '../../../api/port.js';
import type { StepContext } from './types.js';

export interface Recorded {
  calls: Array<[string, ...unknown[]]>;
  ctx: StepContext;
}

export function fakeContext(answers: Partial<Record<keyof ServiceClient, (...args: any[]) => unknown>> = {}, ids: Record<string, string> = {}, claimed: string[] = []): Recorded {
  const calls: Recorded['calls'] = [];
  const call = {};
  const client = new Proxy({} as ServiceClient, {
    get(_, prop: string) {
      return async (...args: unknown[]) => {
        calls.push([prop, ...args.filter((a) => a !== call)]);
        const answer = answers[prop as keyof ServiceClient];
        return answer ? answer(...args) : { id: `new-${calls.length}` };
      };
    },
  });
  const resolve = (old: string): string => {
    const id = ids[old];
    if (!id) throw new Error(`unmapped ${old}`);
    return id;
  };
  return { calls, ctx: { client, resolve, workspace: (id) => ids[id] ?? id, isClaimed: (id) => claimed.includes(id), call } };
}

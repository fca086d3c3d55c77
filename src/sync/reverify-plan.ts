// The rolling re-verification: which parts of a workspace an incremental pass also reads in full,
// so that a change that leaves no signal at all (an amendment edit, an automation change, a grant
// without a logged row...) reaches the mirror within the freshness window. Pure: ages in, parts out.
//
// The budget is the workspace's size times the share of the window that has passed since the last
// re-verification, so a window's budgets add up to about one full pass, spread over the passes in
// it; parts are taken oldest first while they fit, and a part that would be past the window by the
// next pass is taken whatever the budget.

export interface PartAge {
  kind: 'workspace' | 'module';
  id: string;
  verifiedAtMs: number;
  /** What reading it in full costs, in requests. */
  weight: number;
}

export interface ReverifyInput {
  parts: readonly PartAge[];
  nowMs: number;
  /** Start of the previous pass: about the time until the next one. */
  lastPassMs: number | null;
  windowMs: number;
}

export interface ReverifyPlan {
  chosen: PartAge[];
  /** Requests the budget allowed this pass. */
  budget: number;
  /** Sum of the parts' weights: a full pass of the workspace. */
  totalWeight: number;
  /** Age of the least recently verified part before this pass. */
  oldestAgeMs: number;
}

export function planReverification(input: ReverifyInput): ReverifyPlan {
  const { nowMs, windowMs } = input;
  const parts = [...input.parts].sort((a, b) => a.verifiedAtMs - b.verifiedAtMs || (a.kind === b.kind ? a.id.localeCompare(b.id) : a.kind === 'workspace' ? -1 : 1));
  const totalWeight = parts.reduce((n, p) => n + p.weight, 0);
  if (parts.length === 0) return { chosen: [], budget: 0, totalWeight: 0, oldestAgeMs: 0 };
  const newest = Math.max(...parts.map((p) => p.verifiedAtMs));
  const sinceLastReverify = Math.max(0, Math.min(windowMs, nowMs - newest));
  const budget = Math.floor((totalWeight * sinceLastReverify) / windowMs);
  const interval = input.lastPassMs === null ? 0 : Math.max(0, Math.min(windowMs, nowMs - input.lastPassMs));
  const chosen: PartAge[] = [];
  let spent = 0;
  for (const p of parts) {
    const dueByNextPass = p.verifiedAtMs + windowMs <= nowMs + interval;
    if (dueByNextPass || spent + p.weight <= budget) {
      chosen.push(p);
      spent += p.weight;
    } else break; // oldest first: a younger part waits behind an older one that does not fit yet
  }
  return { chosen, budget, totalWeight, oldestAgeMs: Math.max(0, nowMs - parts[0]!.verifiedAtMs) };
}

/** Requests a full read of a module costs, from its stored size. */
export function moduleWeight(size: { records: number; withSubRecords: number; withAmendments: number; collections: number } | undefined): number {
  if (!size) return 5;
  return 5 + size.collections + size.records + size.withSubRecords + size.withAmendments;
}

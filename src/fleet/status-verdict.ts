// Whether a tenant of `wbsync fleet status` is failing, and why: its last pass failed, its last
// successful pass is older than its freshness bound (freshness.maxStalenessMinutes, its own or the
// fleet's; a tenant with none yet counts from when it was added), or it has no live home (never
// taken by a worker, or its worker's heartbeat is older than fleet.workerTtlSeconds). A paused
// tenant is never failing: someone paused it. Any failing tenant makes the command exit 5
// ("finished, but some parts failed"), as `sync` does for a failed part.

import { commandLine } from '../domain/shell-command.js';

export interface TenantVerdictInput {
  name: string;
  paused: boolean;
  home: { worker: string; workerLive: boolean } | null;
  lastPass: { kind: string; finishedAt: string; ok: boolean | null; error: string | null } | null;
  lastSuccess: string | null;
  freshnessBoundSeconds: number;
  addedAt: string;
}

const minutes = (s: number): string => (s < 120 ? `${Math.round(s)} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${Math.round(s / 360) / 10} h`);

/** Why the tenant is failing (one line each), or [] when it is not. */
export function tenantProblems(t: TenantVerdictInput, nowMs: number): string[] {
  if (t.paused) return [];
  const out: string[] = [];
  if (!t.home) out.push('no home: no worker has taken it (is a worker with room running? see the workers below)');
  else if (!t.home.workerLive) {
    out.push(`no live home: its worker ${t.home.worker} is gone (no heartbeat within fleet.workerTtlSeconds); start it again with its volume, or move the tenant: ${commandLine(['wbsync', 'fleet', 'adopt', t.name, '--to', 'WORKER'])}`);
  }
  if (t.lastPass && t.lastPass.ok === false) {
    out.push(`last pass failed (${t.lastPass.kind}, ${t.lastPass.finishedAt.slice(0, 19)}Z): ${(t.lastPass.error ?? 'no error recorded').replace(/\s+/g, ' ').slice(0, 200)}`);
  }
  const bound = t.freshnessBoundSeconds;
  if (t.lastSuccess) {
    const age = (nowMs - Date.parse(t.lastSuccess)) / 1000;
    if (age > bound) out.push(`stale: last successful pass ${minutes(age)} ago, beyond its freshness bound (freshness.maxStalenessMinutes: ${minutes(bound)})`);
  } else {
    const age = (nowMs - Date.parse(t.addedAt)) / 1000;
    if (age > bound) out.push(`stale: no successful pass in the ${minutes(age)} since it was added, beyond its freshness bound (freshness.maxStalenessMinutes: ${minutes(bound)})`);
  }
  return out;
}

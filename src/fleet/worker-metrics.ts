// A fleet worker's /metrics: every tenant's wbsync_* families (the daemon's, from each tenant's own
// registry) with a `tenant` label added, one family block each, plus the worker's own
// wbsync_fleet_* families and the process metrics. Served in the Prometheus text format.

import { Counter, Gauge, Registry } from 'prom-client';
import { processRegistry, PROMETHEUS_TEXT } from '../daemon/metrics.js';
import type { BudgetStats } from './budget.js';

/** Adds tenant="…" to every sample line of a text exposition; groups lines by family. */
export function labelExposition(text: string, tenant: string, into: Map<string, { head: string[]; samples: string[] }>): void {
  let current: { head: string[]; samples: string[] } | null = null;
  for (const line of text.split('\n')) {
    if (!line) continue;
    const m = /^# (HELP|TYPE) (\S+)/.exec(line);
    if (m) {
      const name = m[2]!;
      let fam = into.get(name);
      if (!fam) into.set(name, (fam = { head: [], samples: [] }));
      if (!fam.head.some((h) => h.startsWith(`# ${m[1]} `))) fam.head.push(line);
      current = fam;
      continue;
    }
    if (line.startsWith('#') || !current) continue;
    const brace = line.indexOf('{');
    const space = line.indexOf(' ');
    if (brace !== -1 && brace < space) current.samples.push(`${line.slice(0, brace + 1)}tenant="${tenant}"${line[brace + 1] === '}' ? '' : ','}${line.slice(brace + 1)}`);
    else current.samples.push(`${line.slice(0, space)}{tenant="${tenant}"}${line.slice(space)}`);
  }
}

export interface WorkerLive {
  postgresUp: boolean;
  tenants: number;
  running: number;
  budget: Map<string, BudgetStats>;
}

export class WorkerMetrics {
  readonly registry = new Registry();
  readonly jobs: Counter<'tenant' | 'kind' | 'result'>;

  constructor(live: () => WorkerLive) {
    processRegistry();
    const registers = [this.registry];
    this.jobs = new Counter({ name: 'wbsync_fleet_jobs_total', help: 'Jobs this worker ran, by tenant, kind and result (ok, failed, skipped, error).', labelNames: ['tenant', 'kind', 'result'], registers });
    new Gauge({ name: 'wbsync_fleet_postgres_up', help: '1 while the last heartbeat reached Postgres.', registers, collect() { this.set(live().postgresUp ? 1 : 0); } });
    new Gauge({ name: 'wbsync_fleet_tenants', help: 'Tenants homed on this worker.', registers, collect() { this.set(live().tenants); } });
    new Gauge({ name: 'wbsync_fleet_jobs_running', help: 'Jobs running on this worker now.', registers, collect() { this.set(live().running); } });
    new Counter({
      name: 'wbsync_fleet_budget_waits_total',
      help: 'Times a request of this worker waited for the shared budget of its service, by service base URL.',
      labelNames: ['service'],
      registers,
      collect() {
        this.reset();
        for (const [service, s] of live().budget) this.inc({ service }, s.waits);
      },
    });
    new Counter({
      name: 'wbsync_fleet_budget_wait_seconds_total',
      help: 'Seconds requests of this worker spent waiting for the shared budget, by service base URL.',
      labelNames: ['service'],
      registers,
      collect() {
        this.reset();
        for (const [service, s] of live().budget) this.inc({ service }, s.waitedMs / 1000);
      },
    });
  }

  async render(tenants: ReadonlyArray<{ name: string; registry: Registry }>): Promise<{ contentType: string; body: string }> {
    const families = new Map<string, { head: string[]; samples: string[] }>();
    for (const t of tenants) labelExposition(await t.registry.metrics(), t.name, families);
    const own = await Registry.merge([processRegistry(), this.registry]).metrics();
    const labelled = [...families.values()].map((f) => [...f.head, ...f.samples].join('\n')).join('\n');
    return { contentType: PROMETHEUS_TEXT, body: `${own.trimEnd()}\n${labelled}${labelled ? '\n' : ''}` };
  }
}

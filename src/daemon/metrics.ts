// The exposition side of /metrics, on prom-client: the process and Node runtime metrics (one
// registry per process), content negotiation (OpenMetrics when the scraper asks for it, else the
// Prometheus text format 0.0.4), and a gauge that can be absent until its value is known.

import { Gauge, Registry, collectDefaultMetrics, type MetricObjectWithValues, type MetricValue, type RegistryContentType } from 'prom-client';

export const PROMETHEUS_TEXT = Registry.PROMETHEUS_CONTENT_TYPE;
export const OPENMETRICS_TEXT = Registry.OPENMETRICS_CONTENT_TYPE;
export type MetricsContentType = typeof PROMETHEUS_TEXT | typeof OPENMETRICS_TEXT;

let processMetrics: Registry | null = null;

/** prom-client's default metrics (resident memory, CPU, event-loop lag, heap, GC, handles...).
 * Once per process: they install observers that live as long as the process. */
export function processRegistry(): Registry {
  if (!processMetrics) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics });
  }
  return processMetrics;
}

/** OpenMetrics when the Accept header rates it at least as high as the text format (Prometheus
 * asks for it first by default); the text format otherwise, and when there is no header. */
export function negotiateFormat(accept: string | undefined): MetricsContentType {
  let openMetrics = 0;
  let text = 0;
  for (const part of (accept ?? '').split(',')) {
    const [type = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q)) continue;
    if (type === 'application/openmetrics-text') openMetrics = Math.max(openMetrics, q);
    else if (type === 'text/plain' || type === 'text/*' || type === '*/*') text = Math.max(text, q);
  }
  return openMetrics > 0 && openMetrics >= text ? OPENMETRICS_TEXT : PROMETHEUS_TEXT;
}

// prom-client 15 renames a counter in place (`x_total` -> `x`) when it renders OpenMetrics
// (siimon/prom-client: "Registry.metrics() permanently mutated the registered Counter's name"), so
// a later text-format scrape would lose `_total`. Each render restores the names first, and renders
// run one at a time.
const originalNames = new WeakMap<object, string>();
let queue: Promise<unknown> = Promise.resolve();

export async function renderMetrics(registries: readonly Registry[], accept: string | undefined): Promise<{ contentType: MetricsContentType; body: string }> {
  const contentType = negotiateFormat(accept);
  const job = queue.then(async () => {
    const merged = Registry.merge([...registries]);
    for (const m of merged.getMetricsAsArray()) {
      const name = originalNames.get(m) ?? m.name;
      originalNames.set(m, name);
      (m as { name: string }).name = name;
    }
    (merged as unknown as Registry<RegistryContentType>).setContentType(contentType);
    return merged.metrics();
  });
  queue = job.catch(() => undefined);
  return { contentType, body: await job };
}

/** A gauge without labels whose family shows no sample while its value is unknown (a timestamp or
 * an age not known yet), rather than a misleading 0. */
export class OptionalGauge extends Gauge {
  private readonly read: () => number | null;

  constructor(cfg: { name: string; help: string; registers: Registry[]; value: () => number | null }) {
    super({ name: cfg.name, help: cfg.help, registers: cfg.registers });
    this.read = cfg.value;
  }

  override async get(): Promise<MetricObjectWithValues<MetricValue<string>>> {
    const v = this.read();
    if (v !== null) this.set(v);
    const m = await super.get();
    return v === null ? { ...m, values: [] } : m;
  }
}

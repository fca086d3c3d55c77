// Prometheus text exposition format (version 0.0.4), written by hand: families of samples with
// HELP and TYPE lines, label values escaped. Pure; the daemon feeds it (daemon-metrics.ts).

export type MetricType = 'counter' | 'gauge' | 'histogram';

export interface Sample {
  /** Appended to the family name: '_bucket', '_sum', '_count' for histograms. */
  suffix?: string;
  labels?: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  help: string;
  type: MetricType;
  samples: Sample[];
}

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function escapeHelp(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

export function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

function labelText(labels: Record<string, string> | undefined): string {
  const entries = Object.entries(labels ?? {});
  if (!entries.length) return '';
  return `{${entries.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',')}}`;
}

export function renderMetrics(families: readonly MetricFamily[]): string {
  const lines: string[] = [];
  for (const f of families) {
    lines.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`);
    for (const s of f.samples) lines.push(`${f.name}${s.suffix ?? ''}${labelText(s.labels)} ${formatValue(s.value)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Cumulative histogram of observations (seconds), per label set. */
export class Histogram {
  private readonly series = new Map<string, { labels: Record<string, string>; counts: number[]; sum: number; count: number }>();

  constructor(private readonly bounds: readonly number[]) {}

  observe(labels: Record<string, string>, value: number): void {
    const key = JSON.stringify(labels);
    let s = this.series.get(key);
    if (!s) {
      s = { labels, counts: this.bounds.map(() => 0), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    this.bounds.forEach((b, i) => {
      if (value <= b) s.counts[i] += 1;
    });
    s.sum += value;
    s.count += 1;
  }

  samples(): Sample[] {
    const out: Sample[] = [];
    for (const s of this.series.values()) {
      this.bounds.forEach((b, i) => out.push({ suffix: '_bucket', labels: { ...s.labels, le: formatValue(b) }, value: s.counts[i] }));
      out.push({ suffix: '_bucket', labels: { ...s.labels, le: '+Inf' }, value: s.count });
      out.push({ suffix: '_sum', labels: s.labels, value: s.sum });
      out.push({ suffix: '_count', labels: s.labels, value: s.count });
    }
    return out;
  }
}

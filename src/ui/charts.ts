// Hand-written SVG charts (no library, no script): bars for a figure per pass, a line for another.
// Labels are numbers and snapshot ids we compute, still escaped by `html` like everything else.
import { html, type Html } from './html.js';

export interface PassPoint {
  snapshot: number;
  value: number;
  failed?: boolean;
  /** Tooltip text (an SVG <title>). */
  title: string;
}

const W = 560;
const H = 190;
const PAD = { l: 48, r: 10, t: 10, b: 26 };

function niceMax(v: number): number {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

const fmt = (n: number): string => (n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(Math.round(n)));

function frame(points: readonly PassPoint[], max: number, label: string): Html[] {
  const iw = W - PAD.l - PAD.r;
  const ih = H - PAD.t - PAD.b;
  const out: Html[] = [];
  for (const f of [0, 0.5, 1]) {
    const y = PAD.t + ih - f * ih;
    out.push(html`<line class="axis" x1="${PAD.l}" x2="${W - PAD.r}" y1="${y}" y2="${y}"/><text x="${PAD.l - 6}" y="${y + 4}" text-anchor="end">${fmt(max * f)}</text>`);
  }
  const every = Math.max(1, Math.ceil(points.length / 8));
  points.forEach((p, i) => {
    if (i % every !== 0 && i !== points.length - 1) return;
    const x = PAD.l + (iw * (i + 0.5)) / points.length;
    out.push(html`<text x="${x}" y="${H - 8}" text-anchor="middle">#${p.snapshot}</text>`);
  });
  out.push(html`<text x="${PAD.l}" y="${PAD.t - 1}" dominant-baseline="hanging" dx="4">${label}</text>`);
  return out;
}

export function barChart(points: readonly PassPoint[], label: string, aria: string): Html {
  if (!points.length) return html`<p class="muted">No passes yet.</p>`;
  const max = niceMax(Math.max(...points.map((p) => p.value)));
  const iw = W - PAD.l - PAD.r;
  const ih = H - PAD.t - PAD.b;
  const bw = iw / points.length;
  const bars = points.map((p, i) => {
    const h = Math.max(p.value > 0 ? 1 : 0, (p.value / max) * ih);
    return html`<rect class="bar${p.failed ? ' failed' : ''}" x="${(PAD.l + i * bw + bw * 0.15).toFixed(1)}" y="${(PAD.t + ih - h).toFixed(1)}" width="${Math.max(1, bw * 0.7).toFixed(1)}" height="${h.toFixed(1)}"><title>${p.title}</title></rect>`;
  });
  return html`<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${aria}">${frame(points, max, label)}${bars}</svg>`;
}

export function lineChart(points: readonly PassPoint[], label: string, aria: string): Html {
  if (!points.length) return html`<p class="muted">No passes yet.</p>`;
  const max = niceMax(Math.max(...points.map((p) => p.value)));
  const iw = W - PAD.l - PAD.r;
  const ih = H - PAD.t - PAD.b;
  const xy = points.map((p, i) => [PAD.l + (iw * (i + 0.5)) / points.length, PAD.t + ih - (p.value / max) * ih] as const);
  const d = xy.map(([x, y], i) => `${i ? 'L' : 'M'}${x.toFixed(1)},${y.toFixed(1)}`).join(' ');
  const dots = points.length <= 60 ? xy.map(([x, y], i) => html`<circle class="dot" cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="2.5"><title>${points[i]!.title}</title></circle>`) : [];
  return html`<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${aria}">${frame(points, max, label)}<path class="line" d="${d}"/>${dots}</svg>`;
}

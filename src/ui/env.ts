// What every console page reads from: the read-only store, the console's own readers, the
// configuration, the clock and (under the daemon) its live health. Plus small shared helpers.

import type { Config } from '../config/schema.js';
import type { ConsoleReads } from '../store/read/index.js';
import type { SnapshotInfo, StateReader, Store } from '../store/port.js';
import { html, type Html } from './html.js';
import { NotFound, intParam } from './params.js';

/** What the daemon knows that the database does not: its health and the pass in flight. */
export interface LiveStatus {
  status: string;
  reason: string | null;
  running: { kind: string } | null;
}

/** The schedule, as the caller reads it (cron lives with the daemon). */
export interface ScheduleView {
  /** One incremental interval: a backup older than three is stale. */
  intervalMs: number;
  nextPass(): { kind: 'full' | 'incremental'; at: string } | null;
}

export interface ConsoleEnv {
  /** Mount path, e.g. /ui (links are built from it). */
  base: string;
  store: Store;
  reads: ConsoleReads;
  config: Config;
  now(): Date;
  schedule: ScheduleView;
  /** Set when the daemon serves the console. */
  live?: () => LiveStatus | null;
}

export interface Reply {
  status: number;
  body: Html;
}

/** The snapshot a page shows: ?snapshot=N (a complete one) or the latest complete. */
export function snapshotOf(env: ConsoleEnv, q: URLSearchParams): { info: SnapshotInfo; state: StateReader } | null {
  const asked = intParam(q, 'snapshot', 1, Number.MAX_SAFE_INTEGER);
  const id = asked ?? env.store.latestCompleteSnapshot();
  if (id === null) return null;
  const info = env.store.getSnapshot(id);
  if (!info || info.status !== 'complete') throw new NotFound(`no complete snapshot ${id}`);
  return { info, state: env.store.stateAt(id)! };
}

export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  return Number.isFinite(t) ? new Date(t).toISOString().replace('T', ' ').replace(/:\d\d\.\d+Z$|:\d\dZ$/, ' UTC') : iso;
}

export function ago(iso: string | null | undefined, now: Date): string {
  if (!iso) return 'never';
  const ms = now.getTime() - Date.parse(iso);
  if (!Number.isFinite(ms)) return iso;
  const s = Math.round(Math.abs(ms) / 1000);
  const span = s < 90 ? `${s} s` : s < 5400 ? `${Math.round(s / 60)} min` : s < 172_800 ? `${Math.round(s / 3600)} h` : `${Math.round(s / 86_400)} days`;
  return ms >= 0 ? `${span} ago` : `in ${span}`;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

export function statusPill(status: string): Html {
  const cls = status === 'complete' || status === 'ok' ? 'ok' : status === 'failed' || status === 'unhealthy' ? 'bad' : 'warn';
  return html`<span class="pill ${cls}">${status}</span>`;
}

/** A snapshot picker (GET form) that keeps the other parameters of the page. */
export function snapshotPicker(env: ConsoleEnv, action: string, current: number, keep: Record<string, string | undefined> = {}): Html {
  const snaps = env.store.listSnapshots().filter((s) => s.status === 'complete').reverse();
  return html`<form class="inline" method="get" action="${env.base}${action}">
    ${Object.entries(keep).map(([k, v]) => (v === undefined ? '' : html`<input type="hidden" name="${k}" value="${v}">`))}
    <label>As of snapshot<select name="snapshot">${snaps.map((s) => html`<option value="${s.id}"${s.id === current ? html` selected` : ''}>#${s.id} · ${s.kind} · ${when(s.finishedAt ?? s.startedAt)}</option>`)}</select></label>
    <button type="submit">Show</button></form>`;
}

// Snapshots: every pass with its kind, status, time, counts and hold, and a form to compare any two.

import { activeHolds } from '../../store/retention/index.js';
import type { SnapshotInfo } from '../../store/port.js';
import { statusPill, when, type ConsoleEnv, type Reply } from '../env.js';
import { html, type Html } from '../html.js';
import { page } from '../layout.js';
import { changesOf } from './overview.js';

function counts(s: SnapshotInfo): Html {
  const parts = Object.entries(s.counts).filter(([, n]) => n > 0);
  if (!parts.length) return html`<span class="muted">no change</span>`;
  return html`${parts.map(([k, n]) => html`<span class="pill ${k.endsWith('.gone') ? 'bad' : 'info'}" title="${k}">${k.replace('.gone', ' removed')} ${n}</span> `)}`;
}

function duration(s: SnapshotInfo): string {
  const ms = typeof s.summary.durationMs === 'number' ? s.summary.durationMs : s.finishedAt ? Date.parse(s.finishedAt) - Date.parse(s.startedAt) : null;
  return ms === null || !Number.isFinite(ms) ? '—' : `${(ms / 1000).toFixed(1)} s`;
}

export function snapshotsPage(env: ConsoleEnv): Reply {
  const list = env.store.listSnapshots().reverse();
  const held = new Map(activeHolds(env.store.db, env.now()).map((h) => [h.snapshotId, h]));
  const complete = list.filter((s) => s.status === 'complete');
  const options = (sel: number | undefined) => complete.map((s) => html`<option value="${s.id}"${s.id === sel ? html` selected` : ''}>#${s.id} · ${s.kind} · ${when(s.finishedAt)}</option>`);
  const prevComplete = (s: SnapshotInfo): SnapshotInfo | undefined => complete.find((c) => c.id < s.id);
  const body = html`<h1>Snapshots</h1><p class="sub">${list.length} snapshots, newest first. A snapshot is the state after one pass; every version is kept.</p>
  <div class="card"><h2>What changed between two snapshots</h2>
    ${complete.length < 2
      ? html`<p class="muted">Two complete snapshots are needed to compare.</p>`
      : html`<form class="inline" method="get" action="${env.base}/changes"><label>From<select name="from">${options(complete[1]?.id)}</select></label>
      <label>To<select name="to">${options(complete[0]?.id)}</select></label><button type="submit">Compare</button></form>`}
  </div>
  <div class="card scroll"><table>
    <tr><th>#</th><th>kind</th><th>status</th><th>started</th><th class="num">duration</th><th class="num">requests</th><th class="num">changes</th><th>versions written / removed</th><th></th></tr>
    ${list.map((s) => {
      const h = held.get(s.id);
      const prev = prevComplete(s);
      return html`<tr><td class="num">${s.status === 'complete' ? html`<a href="${env.base}/browse?snapshot=${s.id}">#${s.id}</a>` : html`#${s.id}`}</td>
        <td>${s.kind}</td><td>${statusPill(s.status)}${h ? html` <span class="pill warn" title="${h.reason}">held until ${h.expiresAt.slice(0, 10)}</span>` : ''}</td>
        <td>${when(s.startedAt)}</td><td class="num">${duration(s)}</td><td class="num">${typeof s.summary.requests === 'number' ? s.summary.requests : '—'}</td>
        <td class="num">${changesOf(s)}</td><td>${counts(s)}</td>
        <td>${s.status === 'complete' && prev ? html`<a href="${env.base}/changes?from=${prev.id}&amp;to=${s.id}">what changed</a>` : ''}</td></tr>`;
    })}
  </table></div>`;
  return { status: 200, body: page({ base: env.base, title: 'Snapshots', section: 'snapshots', body }) };
}

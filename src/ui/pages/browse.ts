// Browse: the workspaces and their modules as of a snapshot (sizes from one grouped read each).

import { snapshotOf, snapshotPicker, when, type ConsoleEnv, type Reply } from '../env.js';
import { clip, html } from '../html.js';
import { page } from '../layout.js';

export function browsePage(env: ConsoleEnv, q: URLSearchParams): Reply {
  const at = snapshotOf(env, q);
  if (!at) {
    const body = html`<h1>Browse</h1><div class="card"><p class="muted">No complete snapshot yet: run <span class="mono">wbsync sync --full</span>.</p></div>`;
    return { status: 200, body: page({ base: env.base, title: 'Browse', section: 'browse', body }) };
  }
  const { info, state } = at;
  const n = info.id;
  const sections = state.workspaces().map((w) => {
    const sizes = state.moduleSizes(w.id);
    const modules = state.modules(w.id);
    const members = state.members(w.id);
    return html`<div class="card"><h2>${clip(w.name, 160)}</h2><p class="sub">${w.description ? html`<span class="text">${clip(w.description, 300)}</span> · ` : ''}${modules.length} modules · ${members.length} members · <span class="mono">${w.id}</span></p>
      <div class="scroll"><table><tr><th>module</th><th class="num">collections</th><th class="num">records</th><th class="num">with sub-records</th><th class="num">with amendments</th><th>updated</th><th></th></tr>
      ${modules.map((m) => {
        const s = sizes.get(m.id);
        return html`<tr><td class="text"><a href="${env.base}/module/${encodeURIComponent(m.id)}?snapshot=${n}">${clip(m.name, 140)}</a></td>
          <td class="num">${s?.collections ?? 0}</td><td class="num">${s?.records ?? 0}</td><td class="num">${s?.withSubRecords ?? 0}</td><td class="num">${s?.withAmendments ?? 0}</td>
          <td>${when(m.updatedAt)}</td><td><a href="${env.base}/recover?module=${encodeURIComponent(m.id)}&amp;snapshot=${n}">recover…</a></td></tr>`;
      })}</table></div></div>`;
  });
  const body = html`<h1>Browse</h1><p class="sub">The backup as it was at snapshot #${n} (${info.kind}, ${when(info.finishedAt)}).</p>
    <div class="card">${snapshotPicker(env, '/browse', n)}</div>
    ${sections.length ? sections : html`<div class="card"><p class="muted">This snapshot holds no workspace.</p></div>`}`;
  return { status: 200, body: page({ base: env.base, title: 'Browse', section: 'browse', body, snapshot: n }) };
}

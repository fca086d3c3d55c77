// Search through the full-text index (the newest version of live records and amendments); each hit
// links to its record as of the snapshot being browsed.

import type { ConsoleEnv, Reply } from '../env.js';
import { clip, html } from '../html.js';
import { page } from '../layout.js';
import { intParam, textParam } from '../params.js';

const LIMIT = 100;

export function searchPage(env: ConsoleEnv, q: URLSearchParams): Reply {
  const text = (textParam(q, 'q', 200) ?? '').trim();
  const snapshot = intParam(q, 'snapshot', 1, Number.MAX_SAFE_INTEGER);
  const hits = text ? env.reads.search(text, LIMIT) : [];
  const state = env.store.stateAt();
  const moduleName = new Map((state?.modules() ?? []).map((m) => [m.id, m.name]));
  const at = snapshot === undefined ? '' : `?snapshot=${snapshot}`;
  const body = html`<h1>Search</h1><p class="sub">Record names and amendment text, in the newest backup (the full-text index). ${snapshot === undefined ? '' : `Results open as of snapshot #${snapshot}.`}</p>
  <div class="card"><form class="inline" method="get" action="${env.base}/search"><label>Words<input type="text" name="q" value="${text}" size="40"></label>
    ${snapshot === undefined ? '' : html`<input type="hidden" name="snapshot" value="${snapshot}">`}<button type="submit">Search</button></form></div>
  ${text
    ? html`<div class="card"><h2>${hits.length === LIMIT ? `the first ${LIMIT}` : hits.length} matches for “${clip(text, 60)}”</h2>
      ${hits.length
        ? html`<table><tr><th>kind</th><th>text</th><th>module</th></tr>${hits.map(
            (h) => html`<tr><td><span class="pill ${h.kind === 'record' ? 'info' : 'warn'}">${h.kind}</span></td>
              <td class="text"><a href="${env.base}/record/${encodeURIComponent(h.recordId)}${at}">${clip(h.text, 160)}</a></td>
              <td class="text">${h.moduleId ? clip(moduleName.get(h.moduleId) ?? h.moduleId, 60) : ''}</td></tr>`,
          )}</table>`
        : html`<p class="muted">Nothing matches. Words match whole (prefixes do not), accents ignored.</p>`}</div>`
    : ''}`;
  return { status: 200, body: page({ base: env.base, title: 'Search', section: 'search', body, snapshot }) };
}

// Search through the full-text index (the newest version of live records, amendments and the text
// typed in cells); each hit links to its record as of the snapshot being browsed. Words the index
// cannot read are a 400 naming the problem. The page writes a hidden character of the words as the
// terminal does (`\u202e`), in the search box too; sent back, such an escape is read as the
// separator the index makes of the character itself, so searching again finds the same.

import type { ConsoleEnv, Reply } from '../env.js';
import { hiddenEscapesReplaced } from '../../domain/display-text.js';
import { clip, html } from '../html.js';
import { page } from '../layout.js';
import { BadRequest, intParam, textParam } from '../params.js';
import { SearchTextError, type SearchHit } from '../../store/read/index.js';

const LIMIT = 100;

export function searchPage(env: ConsoleEnv, q: URLSearchParams): Reply {
  const text = (textParam(q, 'q', 200) ?? '').trim();
  const snapshot = intParam(q, 'snapshot', 1, Number.MAX_SAFE_INTEGER);
  let hits: SearchHit[] = [];
  try {
    hits = text ? env.reads.search(hiddenEscapesReplaced(text, ' '), LIMIT) : [];
  } catch (e) {
    if (e instanceof SearchTextError) throw new BadRequest(`q: ${e.message}`);
    throw e;
  }
  const state = env.store.stateAt();
  const moduleName = new Map((state?.modules() ?? []).map((m) => [m.id, m.name]));
  const columnName = new Map<string, string>();
  for (const m of new Set(hits.filter((h) => h.kind === 'cell' && h.moduleId).map((h) => h.moduleId!))) {
    for (const c of state?.columns(m) ?? []) columnName.set(c.id, c.name);
  }
  const kindLabel = (h: SearchHit): string => (h.kind === 'cell' ? `cell · ${clip(h.columnId ? (columnName.get(h.columnId) ?? h.columnId) : 'deleted column', 30)}` : h.kind);
  const at = snapshot === undefined ? '' : `?snapshot=${snapshot}`;
  const body = html`<h1>Search</h1><p class="sub">Record names, amendment text and what was typed in cells, in the newest backup (the full-text index). ${snapshot === undefined ? '' : `Results open as of snapshot #${snapshot}.`}</p>
  <div class="card"><form class="inline" method="get" action="${env.base}/search"><label>Words<input type="text" name="q" value="${text}" size="40"></label>
    ${snapshot === undefined ? '' : html`<input type="hidden" name="snapshot" value="${snapshot}">`}<button type="submit">Search</button></form></div>
  ${text
    ? html`<div class="card"><h2>${hits.length === LIMIT ? `the first ${LIMIT}` : hits.length} matches for “${clip(text, 60)}”</h2>
      ${hits.length
        ? html`<table><tr><th>kind</th><th>text</th><th>module</th></tr>${hits.map(
            (h) => html`<tr><td><span class="pill ${h.kind === 'record' ? 'info' : h.kind === 'cell' ? '' : 'warn'}">${kindLabel(h)}</span></td>
              <td class="text"><a href="${env.base}/record/${encodeURIComponent(h.recordId)}${at}">${clip(h.text, 160)}</a></td>
              <td class="text">${h.moduleId ? clip(moduleName.get(h.moduleId) ?? h.moduleId, 60) : ''}</td></tr>`,
          )}</table>`
        : html`<p class="muted">Nothing matches. Words match whole (prefixes do not), accents ignored.</p>`}</div>`
    : ''}`;
  return { status: 200, body: page({ base: env.base, title: 'Search', section: 'search', body, snapshot }) };
}

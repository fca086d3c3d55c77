// One module as of a snapshot: its collections and columns, and its records one page at a time
// (50 per page, LIMIT/OFFSET over the module's versions) with their cells.

import { snapshotOf, snapshotPicker, type ConsoleEnv, type Reply } from '../env.js';
import { clip, html, query } from '../html.js';
import { page } from '../layout.js';
import { NotFound, idParam, intParam, optionalId } from '../params.js';
import { cellTd, cellsByColumn, namesFor } from './cells.js';
import { restoreLinksHtml } from './restore-links.js';

export const PAGE_SIZE = 50;
const MAX_PAGE = 100_000;
const SHOWN_COLUMNS = 8;

/** Names of every module ever backed up (deleted ones too), for the restore links. */
function moduleNames(env: ConsoleEnv): Map<string, string> {
  return new Map(env.reads.knownModules(env.store.latestCompleteSnapshot()).map((m) => [m.id, m.name]));
}

export function modulePage(env: ConsoleEnv, rawId: string, q: URLSearchParams): Reply {
  const id = idParam(rawId, 'module');
  const at = snapshotOf(env, q);
  const pageNo = intParam(q, 'page', 1, MAX_PAGE) ?? 1;
  const collectionId = optionalId(q, 'collection');
  const mod = at?.state.module(id) ?? null;
  if (!at || !mod) {
    const holding = env.store.snapshotsHolding('module', id);
    if (!holding.length) throw new NotFound(`no module ${id}`);
    const body = html`<h1>Not in snapshot #${at?.info.id ?? '—'}</h1><div class="card"><p>Module <span class="mono">${id}</span> is not part of this snapshot. Snapshots holding it:
      ${holding.slice(-20).map((s) => html`<a href="${env.base}/module/${encodeURIComponent(id)}?snapshot=${s}">#${s}</a> `)}</p>
      ${restoreLinksHtml(env, id, () => moduleNames(env))}<p><a href="${env.base}/recover?module=${encodeURIComponent(id)}">Recover it…</a></p></div>`;
    return { status: 404, body: page({ base: env.base, title: 'Not in this snapshot', section: 'browse', body }) };
  }
  const n = at.info.id;
  const state = at.state;
  const ws = state.workspaces().find((w) => w.id === mod.workspaceId);
  const collections = state.collections(id);
  if (collectionId !== undefined && !collections.some((c) => c.id === collectionId)) throw new NotFound(`no collection ${collectionId} in this module`);
  const columns = state.columns(id, 'record').filter((c) => !c.isHidden);
  const shown = columns.slice(0, SHOWN_COLUMNS);
  const { records, total } = env.reads.recordPage(id, n, { collectionId, collectionOrder: collections.map((c) => c.id), offset: (pageNo - 1) * PAGE_SIZE, limit: PAGE_SIZE });
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  if (pageNo > pages) throw new NotFound(`page ${pageNo} (this list has ${pages})`);
  const cellList = env.reads.cellsOf(records.map((r) => r.id), n);
  const cells = cellsByColumn(cellList);
  const people = namesFor(cellList, state, env.reads, mod.workspaceId);
  const collectionName = new Map(collections.map((c) => [c.id, c.name]));
  const link = (p: number) => `${env.base}/module/${encodeURIComponent(id)}${query({ snapshot: n, collection: collectionId, page: p })}`;

  const body = html`<div class="crumbs"><a href="${env.base}/browse?snapshot=${n}">Browse</a> › ${clip(ws?.name ?? mod.workspaceId, 80)} ›</div>
  <h1 class="text">${clip(mod.name, 300)}</h1>
  <p class="sub">${mod.description ? html`<span class="text">${clip(mod.description, 300)}</span> · ` : ''}as of snapshot #${n} · ${collections.length} collections · ${columns.length} columns · <span class="mono">${id}</span>
    · <a href="${env.base}/recover?module=${encodeURIComponent(id)}&amp;snapshot=${n}">recover…</a></p>
  ${restoreLinksHtml(env, id, () => moduleNames(env))}
  <div class="card">${snapshotPicker(env, `/module/${encodeURIComponent(id)}`, n, { collection: collectionId })}</div>
  <div class="card"><h2>Collections</h2><p>${collectionId === undefined ? html`<span class="pill info">all</span> ` : html`<a href="${env.base}/module/${encodeURIComponent(id)}?snapshot=${n}">all</a> · `}
    ${collections.map((c) => (c.id === collectionId ? html`<span class="pill info">${clip(c.name, 60)}</span> ` : html`<a href="${env.base}/module/${encodeURIComponent(id)}${query({ snapshot: n, collection: c.id })}">${clip(c.name, 60)}</a> · `))}</p></div>
  <div class="card"><h2>Records</h2><p class="sub">${total} top-level records${collectionId ? ` in ${collectionName.get(collectionId)}` : ''} · page ${pageNo} of ${pages}${columns.length > SHOWN_COLUMNS ? ` · first ${SHOWN_COLUMNS} of ${columns.length} columns shown (all on each record's page)` : ''}</p>
  <div class="scroll"><table><tr><th>record</th>${collectionId ? '' : html`<th>collection</th>`}${shown.map((c) => html`<th>${clip(c.name, 40)}</th>`)}<th class="num">sub</th><th class="num">amendments</th></tr>
  ${records.map(
    (r) => html`<tr><td class="text"><a href="${env.base}/record/${encodeURIComponent(r.id)}?snapshot=${n}">${clip(r.name, 100)}</a>${r.isArchived ? html` <span class="pill warn">archived</span>` : ''}${r.isCompleted ? html` <span class="pill ok">done</span>` : ''}</td>
      ${collectionId ? '' : html`<td class="text">${clip(collectionName.get(r.collectionId ?? '') ?? '—', 40)}</td>`}${cellTd(shown, cells.get(r.id), people)}<td class="num">${r.subRecordCount || ''}</td><td class="num">${r.amendmentCount || ''}</td></tr>`,
  )}</table></div>
  <div class="pager">${pageNo > 1 ? html`<a href="${link(1)}">« first</a><a href="${link(pageNo - 1)}">‹ previous</a>` : ''}<span class="cur">page ${pageNo} / ${pages}</span>${pageNo < pages ? html`<a href="${link(pageNo + 1)}">next ›</a><a href="${link(pages)}">last »</a>` : ''}</div></div>`;
  return { status: 200, body: page({ base: env.base, title: mod.name.slice(0, 80), section: 'browse', body, snapshot: n }) };
}

// One record as of a snapshot: every cell, its sub-records with theirs, and its amendment threads.

import type { Amendment } from '../../domain/entities.js';
import { snapshotOf, snapshotPicker, when, type ConsoleEnv, type Reply } from '../env.js';
import { clip, html, type Html } from '../html.js';
import { page } from '../layout.js';
import { NotFound, idParam } from '../params.js';
import { cellTd, cellText, cellsByColumn, namesColumn, namesFor } from './cells.js';

function thread(amendments: Amendment[], author: (id: string | null) => string): Html {
  const replies = new Map<string, Amendment[]>();
  for (const a of amendments) if (a.parentId) replies.set(a.parentId, [...(replies.get(a.parentId) ?? []), a]);
  const ids = new Set(amendments.map((a) => a.id));
  const one = (a: Amendment): Html =>
    html`<div class="amend"><div class="muted">${author(a.userId)} · ${when(a.createdAt)}${a.edited ? ' · edited' : ''}${a.isDeleted ? html` <span class="pill bad">deleted</span>` : ''}</div><div class="text">${a.message}</div></div>
      ${(replies.get(a.id) ?? []).length ? html`<div class="reply">${(replies.get(a.id) ?? []).map(one)}</div>` : ''}`;
  const roots = amendments.filter((a) => !a.parentId || !ids.has(a.parentId));
  return html`${roots.map((a) => html`<div class="thread">${one(a)}</div>`)}`;
}

export function recordPage(env: ConsoleEnv, rawId: string, q: URLSearchParams): Reply {
  const id = idParam(rawId, 'record');
  const at = snapshotOf(env, q);
  const rec = at?.state.record(id) ?? null;
  if (!at || !rec) {
    const holding = env.store.snapshotsHolding('record', id);
    if (!holding.length) throw new NotFound(`no record ${id}`);
    const body = html`<h1>Not in snapshot #${at?.info.id ?? '—'}</h1><div class="card"><p>Record <span class="mono">${id}</span> is not part of this snapshot. Snapshots holding it:
      ${holding.slice(-20).map((s) => html`<a href="${env.base}/record/${encodeURIComponent(id)}?snapshot=${s}">#${s}</a> `)}</p></div>`;
    return { status: 404, body: page({ base: env.base, title: 'Not in this snapshot', section: 'browse', body }) };
  }
  const n = at.info.id;
  const state = at.state;
  const mod = state.module(rec.moduleId);
  const parent = rec.parentRecordId ? state.record(rec.parentRecordId) : null;
  const columns = state.columns(rec.moduleId, rec.parentRecordId ? 'subrecord' : 'record');
  const subColumns = state.columns(rec.moduleId, 'subrecord').filter((c) => !c.isHidden).slice(0, 6);
  const own = env.reads.cellsOf([rec.id], n);
  const cells = cellsByColumn(own).get(rec.id);
  const subs = env.reads.subRecords(rec.id, n);
  const subList = env.reads.cellsOf(subs.map((s) => s.id), n);
  const subCells = cellsByColumn(subList);
  const amendments = env.reads.amendmentsOf(rec.id, n);
  const people = namesFor([...own, ...subList], state, env.reads, rec.workspaceId);
  const author = (u: string | null) => (u === null ? 'someone (account removed)' : (people.get(u) ?? u));
  const collection = rec.collectionId ? state.collections(rec.moduleId).find((c) => c.id === rec.collectionId) : undefined;

  const body = html`<div class="crumbs"><a href="${env.base}/browse?snapshot=${n}">Browse</a> › ${mod ? html`<a href="${env.base}/module/${encodeURIComponent(mod.id)}?snapshot=${n}">${clip(mod.name, 80)}</a>` : rec.moduleId} ›
    ${parent ? html`<a href="${env.base}/record/${encodeURIComponent(parent.id)}?snapshot=${n}">${clip(parent.name, 60)}</a> ›` : ''}</div>
  <h1 class="text">${rec.name}</h1>
  <p class="sub">${parent ? 'sub-record' : 'record'} · ${collection ? html`collection ${clip(collection.name, 60)} · ` : ''}as of snapshot #${n} · created ${when(rec.createdAt)} · updated ${when(rec.updatedAt)}
    ${rec.isArchived ? html` · <span class="pill warn">archived</span>` : ''}${rec.isCompleted ? html` · <span class="pill ok">done</span>` : ''} · <span class="mono">${rec.id}</span></p>
  <div class="card">${snapshotPicker(env, `/record/${encodeURIComponent(id)}`, n)}</div>
  <div class="card"><h2>Fields</h2><table>${columns.map((c) => html`<tr><th class="field">${clip(c.name, 60)} <span class="muted">(${c.type})</span></th><td class="text">${cellText(cells?.get(c.id)?.value ?? null, 4000, namesColumn(c) ? people : undefined) || html`<span class="muted">empty</span>`}</td></tr>`)}</table></div>
  ${subs.length
    ? html`<div class="card"><h2>Sub-records (${subs.length})</h2><div class="scroll"><table><tr><th>name</th>${subColumns.map((c) => html`<th>${clip(c.name, 40)}</th>`)}</tr>
      ${subs.map((s) => html`<tr><td class="text"><a href="${env.base}/record/${encodeURIComponent(s.id)}?snapshot=${n}">${clip(s.name, 100)}</a></td>${cellTd(subColumns, subCells.get(s.id), people)}</tr>`)}</table></div></div>`
    : ''}
  <div class="card"><h2>Amendments (${amendments.length})</h2>${amendments.length ? thread(amendments, author) : html`<p class="muted">No amendment on this record.</p>`}</div>`;
  return { status: 200, body: page({ base: env.base, title: rec.name.slice(0, 80), section: 'browse', body, snapshot: n }) };
}

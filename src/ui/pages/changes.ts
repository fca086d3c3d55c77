// What changed between two snapshots, per module: entities added, removed and changed field by
// field (before → after), from the same pure comparison `wbsync diff --against M` uses. Only
// modules with versions written or closed in between are read.

import { canon, diffModuleTrees, type EntityDiff } from '../../restore/index.js';
import { changeTrees } from '../change-trees.js';
import { type ConsoleEnv, type Reply, when } from '../env.js';
import { clip, html, type Html } from '../html.js';
import { page } from '../layout.js';
import { BadRequest, NotFound, intParam, optionalId } from '../params.js';
import { commandLine } from '../../domain/shell-command.js';

/** Rows on the page (all modules), and on one module's own page: a page stays quick and readable;
 * the rest is one link (or `wbsync diff`) away. */
const PAGE_ROWS = 400;
const MODULE_ROWS = 2000;

function value(v: unknown): string {
  if (v === null || v === undefined) return 'empty';
  return clip(typeof v === 'string' ? v : canon(v), 200);
}

export function entryRow(e: EntityDiff, href?: string): Html {
  const label = href ? html`<a href="${href}">${clip(e.label, 140)}</a>` : clip(e.label, 140);
  const badge = html`<span class="pill ${e.change === 'added' ? 'ok' : e.change === 'removed' ? 'bad' : 'info'}">${e.change}</span>`;
  return html`<tr><td>${badge}</td><td>${e.entity}</td><td class="text">${label}</td><td>${
    e.fields?.length
      ? e.fields.map((f) => html`<div><span class="muted">${f.field}:</span> <span class="before">${value(f.before)}</span> → <span class="after">${value(f.after)}</span></div>`)
      : ''
  }</td></tr>`;
}

export function changesPage(env: ConsoleEnv, q: URLSearchParams): Reply {
  let from = intParam(q, 'from', 1, Number.MAX_SAFE_INTEGER);
  let to = intParam(q, 'to', 1, Number.MAX_SAFE_INTEGER);
  if (from === undefined || to === undefined) throw new BadRequest('give two snapshots: ?from=N&to=M');
  if (from > to) [from, to] = [to, from];
  const a = env.store.getSnapshot(from);
  const b = env.store.getSnapshot(to);
  for (const [s, id] of [[a, from], [b, to]] as const) if (!s || s.status !== 'complete') throw new NotFound(`no complete snapshot ${id}`);
  const sa = env.store.stateAt(from)!;
  const sb = env.store.stateAt(to)!;
  const only = optionalId(q, 'module');
  const all = from === to ? [] : env.reads.changedModules(from, to);
  const changed = only === undefined ? all : all.filter((c) => c.moduleId === only);
  const link = (moduleId?: string) => `${env.base}/changes?from=${from}&to=${to}${moduleId ? `&module=${encodeURIComponent(moduleId)}` : ''}`;
  let budget = only === undefined ? PAGE_ROWS : MODULE_ROWS;
  const sections: Html[] = [];
  const later: typeof changed = [];
  let total = 0;
  for (const c of changed) {
    if (budget <= 0) {
      later.push(c);
      continue;
    }
    const { a: ta, b: tb } = changeTrees(sa, sb, env.reads, c);
    const name = tb?.module.name ?? ta?.module.name ?? c.moduleId;
    let entries: EntityDiff[];
    if (!ta && !tb) continue;
    if (!ta) entries = [{ entity: 'module', change: 'added', id: c.moduleId, label: name }];
    else if (!tb) entries = [{ entity: 'module', change: 'removed', id: c.moduleId, label: name }];
    else entries = diffModuleTrees(ta, tb, { matchBy: 'id' }).entries;
    if (!entries.length) continue;
    total += entries.length;
    const shown = entries.slice(0, budget);
    budget -= shown.length;
    const recordHref = (e: EntityDiff): string | undefined =>
      e.entity === 'record' ? `${env.base}/record/${encodeURIComponent(e.id)}?snapshot=${e.change === 'removed' ? from : to}` : e.entity === 'module' ? `${env.base}/module/${encodeURIComponent(e.id)}?snapshot=${e.change === 'removed' ? from : to}` : undefined;
    const added = entries.filter((e) => e.change === 'added').length;
    const removed = entries.filter((e) => e.change === 'removed').length;
    sections.push(html`<div class="card"><h2><a href="${env.base}/module/${encodeURIComponent(c.moduleId)}?snapshot=${tb ? to : from}">${clip(name, 140)}</a></h2>
      <p class="sub"><span class="added">${added} added</span> · <span class="removed">${removed} removed</span> · ${entries.length - added - removed} changed
        · <a href="${env.base}/recover?module=${encodeURIComponent(c.moduleId)}&amp;snapshot=${ta ? from : to}">recover as of #${ta ? from : to}</a></p>
      <div class="scroll"><table><tr><th>change</th><th>what</th><th>name</th><th>fields (before → after)</th></tr>
      ${shown.map((e) => entryRow(e, recordHref(e)))}</table></div>
      ${entries.length > shown.length
        ? html`<p class="muted">… and ${entries.length - shown.length} more: ${only === undefined ? html`<a href="${link(c.moduleId)}">all of this module's changes</a>, or ` : ''}<span class="mono">${commandLine(['wbsync', 'diff', '--snapshot', from, '--against', to, '--module', c.moduleId])}</span></p>`
        : ''}</div>`);
  }
  if (later.length) {
    sections.push(html`<div class="card"><h2>More modules changed (${later.length})</h2><table><tr><th>module</th><th class="num">versions written or closed</th><th></th></tr>
      ${later.map((c) => html`<tr><td class="text">${clip(sb.module(c.moduleId)?.name ?? sa.module(c.moduleId)?.name ?? c.moduleId, 100)}</td><td class="num">${c.versions}</td><td><a href="${link(c.moduleId)}">its changes</a></td></tr>`)}</table></div>`);
  }
  const body = html`<div class="crumbs"><a href="${env.base}/snapshots">Snapshots</a> ›${only === undefined ? '' : html` <a href="${link()}">#${from} → #${to}</a> ›`}</div>
  <h1>What changed from #${from} to #${to}</h1>
  <p class="sub">${when(a!.finishedAt)} → ${when(b!.finishedAt)} · ${later.length ? `${changed.length} modules changed; ${total} differences in the ${changed.length - later.length} shown` : `${total} differences in ${sections.length} modules`}
   · the same comparison on the command line: <span class="mono">${commandLine(['wbsync', 'diff', '--snapshot', from, '--against', to])}</span></p>
  ${sections.length ? sections : html`<div class="card"><p class="muted">Nothing changed ${only === undefined ? 'in any module' : 'in this module'} between these snapshots.</p></div>`}`;
  return { status: 200, body: page({ base: env.base, title: `Changes #${from} → #${to}`, section: 'snapshots', body }) };
}

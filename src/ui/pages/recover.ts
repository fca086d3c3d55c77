// Recover: pick a module (a deleted one too), a snapshot and a scope; see the dry-run plan and the
// exact command to copy. Nothing is run from here.

import { when, type ConsoleEnv, type Reply } from '../env.js';
import { clip, html, type Html } from '../html.js';
import { page } from '../layout.js';
import { NotFound, choiceParam, intParam, optionalId } from '../params.js';
import { previewRecover, type RecoverPreview } from '../recover-plan.js';
import { cellText } from './cells.js';
import { allRestorePairs, restoreLinksHtml, restoreLinksOf } from './restore-links.js';
import { commandLine } from '../../domain/shell-command.js';
import { listIncidents } from '../../store/ledgers/index.js';

/** An open tripwire on this module: its pinned undo comes first (it keeps every other write). */
function incidentNote(env: ConsoleEnv, moduleId: string): Html | string {
  const open = listIncidents(env.store.db, 'open', 20).filter((i) => i.moduleId === moduleId && i.undo);
  if (!open.length) return '';
  return html`<div class="card"><h2>Open tripwire${open.length > 1 ? 's' : ''}</h2>${open.map(
    (i) => html`<p class="text">Incident #${i.id}: ${i.summary}. Its undo is pinned to the damage (it puts back only what the damage wrote, keeps every other edit as a conflict): <span class="mono">${commandLine(i.undo!)}</span></p>`,
  )}</div>`;
}

function show(v: unknown): string {
  return v === null || v === undefined ? 'empty' : cellText(typeof v === 'string' ? v : JSON.stringify(v), 120);
}

/** Rollback: the columns and automations — other modules' too — naming what it recreates, as the dry run lists them. */
function repointedHtml(p: RecoverPreview): Html | string {
  const { columns, automations } = p.repointed;
  if (!columns.length && !automations.length) return '';
  const whose = (x: { owner?: { name: string } }): Html | string => (x.owner ? html`${clip(x.owner.name, 40)} › ` : '');
  const how = (c: RecoverPreview['repointed']['columns'][number]): string =>
    c.type === 'relation'
      ? 're-pointed in place; declared where the service keeps settings create-only (a relation column is not made anew)'
      : 're-pointed in place, or made anew where the service keeps settings create-only';
  return html`<h3>Re-pointed at what is recreated (${columns.length + automations.length})</h3><table><tr><th>what</th><th>names</th><th>how</th></tr>${columns.map(
    (c) => html`<tr><td class="text">column ${whose(c)}${clip(c.name, 60)} <span class="muted mono">${c.id}</span></td><td class="mono">${c.names.join(', ')}</td><td class="text">${how(c)}</td></tr>`,
  )}${automations.map(
    (a) => html`<tr><td class="text">automation ${whose(a)}${clip(a.name, 60)} <span class="muted mono">${a.id}</span></td><td class="mono">${a.names.join(', ')}</td><td class="text">re-pointed at the copies (its on/off state kept)</td></tr>`,
  )}</table>`;
}

function preview(env: ConsoleEnv, p: RecoverPreview): Html {
  const counts = Object.entries(p.counts).filter(([, n]) => n > 0);
  const liveNote =
    p.scope === 'module'
      ? p.goneSinceBackup
        ? html`The latest backup (#${p.latest}) no longer holds this module: it was deleted (or left the mirrored scope) since. The command checks the service again before writing anything, and refuses if the module is back.`
        : html`The latest backup (#${p.latest}) still holds this module, so the command restores it <b>as a copy</b> beside it (<span class="mono">--as-copy</span>).`
      : html`Planned against the latest backup (#${p.latest}) standing in for the service: fields edited after that pass (rollback's <b>conflicts</b>, kept unless --force) only show when the command's own --dry-run reads the service.`;
  return html`<div class="card"><h2>${p.scope === 'module' ? 'Restore' : 'Roll back'} “${clip(p.moduleName, 120)}” to snapshot #${p.snapshot}</h2>
    <p class="notice">This page runs nothing. ${liveNote}</p>
    <h3>The command to copy</h3><pre class="command">${p.command}</pre>
    <p class="muted">Preview it against the live service first (it sends only GET requests): <span class="mono">${p.dryRunCommand}</span></p>
    ${p.refusal
      ? html`<p class="notice bad">${p.refusal}</p>`
      : html`<h3>${p.scope === 'module' ? 'What would be created' : 'What would be put back'}</h3>
      <p>${counts.length ? counts.map(([k, n]) => html`<span class="pill info">${n} ${k}</span> `) : html`<span class="muted">nothing: the latest backup already matches the snapshot</span>`}</p>
      ${p.summary && p.summary.phases.length
        ? html`<table><tr><th>phase</th><th class="num">steps</th><th class="num">writes at most</th><th>operations</th></tr>${p.summary.phases.map(
            (ph) => html`<tr><td>${ph.name}</td><td class="num">${ph.steps}</td><td class="num">${ph.writesAtMost}</td><td>${Object.entries(ph.ops).map(([op, n]) => html`<span class="pill">${op} ${n}</span> `)}</td></tr>`,
          )}<tr><th>total</th><th></th><th class="num">${p.summary.writesAtMost}</th><th></th></tr></table>`
        : ''}
      ${p.writeCount
        ? html`<h3>Fields put back (${p.writeCount})</h3><div class="scroll"><table><tr><th>what</th><th>field</th><th>now (latest backup) → back to</th></tr>${p.writes
            .map((w) => html`<tr><td class="text">${w.entity} ${clip(w.label, 80)}</td><td>${w.field}</td><td><span class="before">${show(w.live)}</span> → <span class="after">${show(w.base)}</span></td></tr>`)}</table></div>
          ${p.writeCount > p.writes.length ? html`<p class="muted">… and ${p.writeCount - p.writes.length} more.</p>` : ''}`
        : ''}
      ${repointedHtml(p)}
      ${p.newRecords.length ? html`<h3>Records created since (${p.newRecords.length}, listed, left alone)</h3><p>${p.newRecords.slice(0, 50).map((r) => html`<span class="pill">${clip(r.name, 40)}</span> `)}</p>` : ''}
      ${p.notRestored.length
        ? html`<h3>Not restorable (${p.notRestored.length})</h3><table><tr><th>what</th><th>why</th></tr>${p.notRestored.slice(0, 100).map((x) => html`<tr><td class="text">${x.entity} ${clip(x.label, 80)}</td><td class="text">${x.reason}</td></tr>`)}</table>`
        : ''}`}
  </div>`;
}

export function recoverPage(env: ConsoleEnv, q: URLSearchParams): Reply {
  const moduleId = optionalId(q, 'module');
  const asked = intParam(q, 'snapshot', 1, Number.MAX_SAFE_INTEGER);
  const scope = choiceParam(q, 'scope', ['module', 'rollback'] as const) ?? 'module';
  const columnId = optionalId(q, 'column');
  const known = env.reads.knownModules(env.store.latestCompleteSnapshot());
  const mod = moduleId === undefined ? undefined : known.find((m) => m.id === moduleId);
  if (moduleId !== undefined && !mod) throw new NotFound(`no module ${moduleId} in any snapshot`);
  // a deleted module and the copy a restore made of it name each other (the restore journal)
  const pairs = allRestorePairs(env);
  const names = new Map(known.map((m) => [m.id, m.name]));
  const pairNote = (id: string): string => {
    const l = restoreLinksOf(pairs, id);
    const as = l.restoredAs[0];
    return `${as ? ` · restored as ${names.has(as.newModuleId) ? `“${clip(names.get(as.newModuleId)!, 40)}”` : 'a copy'} (…${as.newModuleId.slice(-6)})` : ''}${l.restoredFrom ? ` · restored from #${l.restoredFrom.snapshotId} (…${l.restoredFrom.oldModuleId.slice(-6)})` : ''}`;
  };
  const picker = html`<form class="inline" method="get" action="${env.base}/recover"><label>Module<select name="module">${known.map(
    (m) => html`<option value="${m.id}"${m.id === moduleId ? html` selected` : ''}>${clip(m.name, 60)}${m.gone ? ` — deleted (last in #${m.lastSnapshot})` : ''}${pairNote(m.id)}</option>`,
  )}</select></label><button type="submit">Choose</button></form>`;
  let detail: Html | string = '';
  if (mod) {
    const holding = env.store.snapshotsHolding('module', mod.id);
    const snapshot = asked ?? holding[holding.length - 1];
    if (snapshot === undefined || !holding.includes(snapshot)) throw new NotFound(`snapshot ${asked ?? '—'} does not hold module ${mod.id}`);
    const columns = env.store.stateAt(snapshot)!.columns(mod.id);
    if (columnId !== undefined && !columns.some((c) => c.id === columnId)) throw new NotFound(`no column ${columnId} in this module at snapshot ${snapshot}`);
    const infos = new Map(env.store.listSnapshots().map((s) => [s.id, s]));
    const form = html`<form class="inline" method="get" action="${env.base}/recover"><input type="hidden" name="module" value="${mod.id}">
      <label>From snapshot<select name="snapshot">${[...holding].reverse().map((s) => html`<option value="${s}"${s === snapshot ? html` selected` : ''}>#${s} · ${when(infos.get(s)?.finishedAt)}</option>`)}</select></label>
      <label>Scope<select name="scope"><option value="module"${scope === 'module' ? html` selected` : ''}>whole module (restore module)</option><option value="rollback"${scope === 'rollback' ? html` selected` : ''}>in place (rollback)</option></select></label>
      <label>Column (rollback only)<select name="column"><option value="">all columns</option>${columns.map((c) => html`<option value="${c.id}"${c.id === columnId ? html` selected` : ''}>${clip(c.name, 40)} (${c.scope})</option>`)}</select></label>
      <button type="submit">Show the plan</button></form>`;
    const p = previewRecover(env.store, { moduleId: mod.id, snapshot, scope, columnId: scope === 'rollback' ? columnId : undefined, attribution: env.config.restore.attribution });
    detail = html`${incidentNote(env, mod.id)}<div class="card">${restoreLinksHtml(env, mod.id, () => names, pairs)}${form}</div>${preview(env, p)}`;
  }
  const body = html`<h1>Recover</h1><p class="sub">Pick a module — deleted ones are listed first — a snapshot and a scope. The console shows the plan and the command; you run it.</p>
    <div class="card">${known.length ? picker : html`<p class="muted">No module has been backed up yet.</p>`}</div>${detail}`;
  return { status: 200, body: page({ base: env.base, title: 'Recover', section: 'recover', body }) };
}

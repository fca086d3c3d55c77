// Overview: is the backup healthy — last and next pass, freshness, alerts, held snapshots, the
// database's size — and two pictures: what each pass changed and what it cost in requests.

import { activeHolds } from '../../store/retention/index.js';
import { commandLine } from '../../domain/shell-command.js';
import { listIncidents, type Incident } from '../../store/ledgers/index.js';
import type { SnapshotInfo } from '../../store/port.js';
import { barChart, lineChart, type PassPoint } from '../charts.js';
import { ago, bytes, statusPill, when, type ConsoleEnv, type Reply } from '../env.js';
import { html, type Html } from '../html.js';
import { page } from '../layout.js';

const CHART_PASSES = 100;

/** Versions written plus entities marked gone by the pass. */
export function changesOf(s: SnapshotInfo): number {
  return Object.values(s.counts).reduce((n, v) => n + (typeof v === 'number' ? v : 0), 0);
}

const requestsOf = (s: SnapshotInfo): number => (typeof s.summary.requests === 'number' ? s.summary.requests : 0);
const durationOf = (s: SnapshotInfo): number | null => (typeof s.summary.durationMs === 'number' ? s.summary.durationMs : null);

function stat(label: string, value: Html | string, note?: Html | string): Html {
  return html`<div class="card stat"><div class="label">${label}</div><div class="value">${value}</div>${note === undefined ? '' : html`<div class="note">${note}</div>`}</div>`;
}

/** Open tripwires (each with its undo and a link to what changed) and the last few recovered. */
function tripwireCard(env: ConsoleEnv, open: Incident[], recovered: Incident[]): Html {
  const changed = (i: Incident): string => `${env.base}/changes?from=${i.snapshotBefore}&to=${i.snapshotDamage}${i.moduleId ? `&module=${encodeURIComponent(i.moduleId)}` : ''}`;
  const row = (i: Incident): Html =>
    html`<tr><td>${statusPill(i.status === 'open' ? 'tripwire' : 'recovered')} #${i.id}</td><td class="text">${i.summary}${i.what.length > 1 ? html`<div class="muted">${i.what.slice(1).join(' · ')}</div>` : ''}</td><td>${when(i.openedAt)}</td><td>${
      i.status === 'open'
        ? i.undo
          ? html`<span class="mono">${commandLine(i.undo)}</span>`
          : html`<span class="muted">nothing to undo: held</span>`
        : html`recovered ${when(i.recoveredAt ?? '')}${i.recoveredByRun !== null ? ` by run ${i.recoveredByRun}` : ''}`
    }</td><td><a href="${changed(i)}">what changed (#${i.snapshotBefore} → #${i.snapshotDamage})</a></td></tr>`;
  return html`<div class="card"><h2>Tripwires</h2>${
    open.length || recovered.length
      ? html`<table><tr><th>incident</th><th>what</th><th>since</th><th>undo</th><th></th></tr>${[...open, ...recovered].map(row)}</table>`
      : html`<p class="muted">No tripwire has fired.</p>`
  }</div>`;
}

function freshness(env: ConsoleEnv, now: Date): { worst: { label: string; at: string } | null; stale: boolean } {
  const state = env.store.stateAt();
  let worst: { label: string; at: string } | null = null;
  for (const w of state?.workspaces() ?? []) {
    for (const p of env.store.verifiedParts(w.id)) {
      if (worst === null || Date.parse(p.verifiedAt) < Date.parse(worst.at)) worst = { label: `${p.kind === 'module' ? `module ${state?.module(p.id)?.name ?? p.id}` : `workspace ${w.name}`}`, at: p.verifiedAt };
    }
  }
  const stale = worst !== null && now.getTime() - Date.parse(worst.at) > env.config.freshness.maxStalenessMinutes * 60_000;
  return { worst, stale };
}

export function overviewPage(env: ConsoleEnv): Reply {
  const now = env.now();
  const snaps = env.store.listSnapshots();
  const last = snaps[snaps.length - 1] ?? null;
  const latestId = env.store.latestCompleteSnapshot();
  const latest = latestId === null ? null : (snaps.find((s) => s.id === latestId) ?? null);
  const live = env.live?.() ?? null;
  const intervalMs = env.schedule.intervalMs;
  const nextPass = env.schedule.nextPass();
  const fresh = freshness(env, now);

  let health: Html;
  let healthNote: string;
  if (live) {
    health = statusPill(live.status);
    healthNote = live.reason ?? (live.running ? `a ${live.running.kind} pass is running` : 'reported by the daemon');
  } else if (!latest) {
    health = statusPill('no backup yet');
    healthNote = "run 'wbsync sync --full'";
  } else {
    const age = now.getTime() - Date.parse(latest.finishedAt ?? latest.startedAt);
    const bad = last?.status === 'failed' ? 'the last pass failed' : age > 3 * intervalMs ? `no complete pass for ${ago(latest.finishedAt, now).replace(' ago', '')}` : fresh.stale ? 'a part was not read in full within the freshness window' : null;
    health = statusPill(bad ? 'unhealthy' : 'ok');
    healthNote = bad ?? 'from the database (no daemon in this process)';
  }
  const next = nextPass ? html`${ago(nextPass.at, now)}` : '—';
  const holds = activeHolds(env.store.db, now);
  const alerts = env.reads.alertEpisodes();
  const openTrips = listIncidents(env.store.db, 'open', 20);
  const recoveredTrips = listIncidents(env.store.db, 'recovered', 5);

  const recent = snaps.slice(-CHART_PASSES);
  const changes: PassPoint[] = recent.map((s) => ({ snapshot: s.id, value: changesOf(s), failed: s.status === 'failed', title: `#${s.id} ${s.kind} ${s.status}: ${changesOf(s)} changes` }));
  const requests: PassPoint[] = recent.map((s) => ({ snapshot: s.id, value: requestsOf(s), failed: s.status === 'failed', title: `#${s.id}: ${requestsOf(s)} requests${durationOf(s) === null ? '' : `, ${((durationOf(s) ?? 0) / 1000).toFixed(1)} s`}` }));

  const body = html`<h1>Overview</h1><p class="sub">Database ${env.store.path} · ${snaps.length} snapshots · viewed ${when(now.toISOString())}</p>
  <div class="grid">
    ${stat('Health', health, healthNote)}
    ${stat('Last pass', last ? html`${statusPill(last.status)} <span>#${last.id}</span>` : '—', last ? `${last.kind}, ${ago(last.finishedAt ?? last.startedAt, now)} · ${requestsOf(last)} requests` : 'no pass yet')}
    ${stat('Next pass', next, `${nextPass ? `${nextPass.kind}, ${when(nextPass.at)}${live ? '' : ' if the daemon runs'} · ` : ''}schedule ${env.config.schedule.incremental} (incremental), ${env.config.schedule.full} (full)`)}
    ${stat('Freshness', fresh.worst ? html`${statusPill(fresh.stale ? 'stale' : 'ok')} ${ago(fresh.worst.at, now)}` : '—', fresh.worst ? `least recently read in full: ${fresh.worst.label} (window ${env.config.freshness.maxStalenessMinutes} min)` : 'nothing read in full yet')}
    ${stat('Database size', bytes(env.reads.fileBytes()), latest ? `latest complete snapshot #${latest.id}` : 'no complete snapshot')}
  </div>
  <div class="two">
    <div class="card chart"><h2>Changes per pass</h2>${barChart(changes, 'versions written + removed', 'changes per pass')}
      <div class="legend"><span><i class="b"></i>complete</span><span><i class="f"></i>failed</span><span>last ${recent.length} passes</span></div></div>
    <div class="card chart"><h2>Requests per pass</h2>${lineChart(requests, 'requests', 'requests per pass')}
      <div class="legend"><span><i class="l"></i>requests to the service</span></div></div>
  </div>
  ${tripwireCard(env, openTrips, recoveredTrips)}
  <div class="two">
    <div class="card"><h2>Alerts</h2>${
      alerts.length
        ? html`<table><tr><th>episode</th><th>since</th><th class="num">count</th><th>last</th></tr>${alerts.map(
            (a) => html`<tr><td>${statusPill(a.announced ? 'announced' : 'counting')} ${a.key}</td><td>${when(a.since)}</td><td class="num">${a.count}</td><td class="text">${a.last}</td></tr>`,
          )}</table>`
        : html`<p class="muted">No open alert episode${openTrips.length ? html` of failing passes — but ${openTrips.length} open tripwire${openTrips.length > 1 ? 's' : ''}: see Tripwires above` : ''}.</p>`
    }</div>
    <div class="card"><h2>Held snapshots</h2>${
      holds.length
        ? html`<table><tr><th>snapshot</th><th>reason</th><th>until</th></tr>${holds.map(
            (h) => html`<tr><td><a href="${env.base}/browse?snapshot=${h.snapshotId}">#${h.snapshotId}</a></td><td class="text">${h.reason}</td><td>${when(h.expiresAt)}</td></tr>`,
          )}</table>`
        : html`<p class="muted">No snapshot is held by a tripwire.</p>`
    }</div>
  </div>`;
  return { status: 200, body: page({ base: env.base, title: 'Overview', section: 'overview', body }) };
}

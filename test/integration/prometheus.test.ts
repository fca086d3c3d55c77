// The monitoring kit against real tools: a real Prometheus scrapes a running `wbsync daemon`
// (mirroring the in-process emulator), and its HTTP API must show the target up, the process and
// wbsync_* families, every dashboard panel query answering, and every alert rule evaluating (and
// quiet on this healthy daemon); promtool checks the rules, runs their unit tests and lints the
// text exposition. Prometheus missing is a failure, never a skip (.ci/run installs it).

import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/types.js';
import { tempDir } from '../helpers/harness.js';
import { promtool, startPrometheus, type RunningPrometheus } from '../helpers/prometheus.js';
import { eventually, killAll, startDaemon, writeConfig, type DaemonChild } from './daemon-harness.js';

const ROOT = resolve(import.meta.dirname, '../..');
const RULES = join(ROOT, 'deploy/prometheus/wbsync-rules.yml');
const RULE_TESTS = join(ROOT, 'deploy/prometheus/wbsync-rules.test.yml');
const DASHBOARD = JSON.parse(readFileSync(join(ROOT, 'deploy/grafana/wbsync.json'), 'utf8')) as {
  panels: Array<{ title: string; type: string; targets?: Array<{ expr: string }> }>;
  templating: { list: Array<{ name: string; query?: { query: string } | string }> };
};

/** The families /metrics had before prom-client: dashboards built on them must keep working. */
const FAMILIES_KEPT = [
  'wbsync_passes_total',
  'wbsync_last_pass_duration_seconds',
  'wbsync_pass_duration_seconds_bucket',
  'wbsync_pass_running',
  'wbsync_healthy',
  'wbsync_http_requests_total',
  'wbsync_http_retries_total',
  'wbsync_reverify_requests_total',
  'wbsync_last_success_timestamp_seconds',
  'wbsync_entities',
  'wbsync_activity_lag_seconds',
  'wbsync_oldest_unverified_seconds',
  'wbsync_cursor_lag_seconds',
];

/** Grafana's variables, as a dashboard on this Prometheus would fill them in. */
function grafanaQuery(expr: string): string {
  return expr.replaceAll('$__rate_interval', '1m').replaceAll('$instance', '.*');
}

/** The alerts the rules file names (promtool validates the file; Prometheus reports each rule's
 * expression through /api/v1/rules, so expressions are read from there, not parsed here). */
function alertNames(): string[] {
  return [...readFileSync(RULES, 'utf8').matchAll(/- alert: (\w+)/g)].map((m) => m[1]!);
}

describe('promtool on the rules', () => {
  it('promtool check rules accepts the rules file', () => {
    const r = promtool(['check', 'rules', RULES]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/SUCCESS: 8 rules found/);
  });

  it('promtool test rules: each alert fires on a synthetic series and stays quiet on a healthy one', () => {
    const r = promtool(['test', 'rules', RULE_TESTS]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('SUCCESS');
    const tests = readFileSync(RULE_TESTS, 'utf8');
    for (const alert of alertNames()) {
      expect(tests, `${alert} fires in a unit test`).toMatch(new RegExp(`alertname: ${alert}\\n\\s+exp_alerts:\\n\\s+- exp_labels`));
    }
  });
});

describe('a real Prometheus scraping a running wbsync daemon', () => {
  let emu: RunningEmulator;
  let daemon: DaemonChild;
  let prom: RunningPrometheus;
  let port: number;
  let cleanup: () => void;

  beforeAll(async () => {
    emu = await startEmulator({ dialect: 'spec', seed: 'demo' });
    const t = tempDir('wbsync-prometheus-');
    cleanup = t.cleanup;
    // a restore drill every few seconds, so the drill panels and WbsyncDrillFailing have data
    daemon = startDaemon(writeConfig(t.dir, 'wbsync', { db: join(t.dir, 'wbsync.db'), extra: { drill: { schedule: '*/3 * * * * *', dialect: 'spec' } } }), emu.baseUrl, emu.apiKey);
    port = await daemon.port();
    await daemon.waitForLog((l) => l.msg === 'pass finished', 30_000, 'the first pass');
    await daemon.waitForLog((l) => l.msg === 'drill passed', 60_000, 'the first restore drill');
    prom = await startPrometheus(
      t.dir,
      [
        'global:',
        '  scrape_interval: 1s',
        '  scrape_timeout: 1s',
        '  evaluation_interval: 1s',
        'rule_files:',
        `  - ${JSON.stringify(RULES)}`,
        'scrape_configs:',
        '  - job_name: wbsync',
        '    static_configs:',
        `      - targets: ['127.0.0.1:${port}']`,
        '',
      ].join('\n'),
    );
    // two scrapes at least, so that rates and increases have something to work on
    await eventually(async () => {
      const r = await prom.query('count_over_time(up{job="wbsync"}[5m])');
      return Number(r.result[0]?.value[1] ?? 0) >= 3;
    }, 30_000, 'three scrapes of the daemon');
  }, 90_000);

  afterAll(async () => {
    await prom?.stop();
    await killAll();
    await emu?.stop();
    cleanup?.();
  });

  it('sees the target up, with resident memory and every wbsync_* family', async () => {
    const targets = await prom.api<{ activeTargets: Array<{ health: string; scrapeUrl: string; lastError: string }> }>('targets');
    expect(targets.activeTargets).toHaveLength(1);
    expect(targets.activeTargets[0], JSON.stringify(targets.activeTargets[0])).toMatchObject({ health: 'up', scrapeUrl: `http://127.0.0.1:${port}/metrics`, lastError: '' });
    expect((await prom.query('up{job="wbsync"}')).result[0]?.value[1]).toBe('1');
    const rss = await prom.query('process_resident_memory_bytes{job="wbsync"}');
    expect(Number(rss.result[0]?.value[1])).toBeGreaterThan(10 * 1024 * 1024);

    const names = new Set(await prom.api<string[]>('label/__name__/values', { 'match[]': '{job="wbsync"}' }));
    for (const f of FAMILIES_KEPT) expect(names.has(f), f).toBe(true);
    // and every wbsync_* family the daemon exposes now, new ones included
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    // (a family with no series yet — no tripwire event, no open incident — has nothing to store)
    const exposed = [...text.matchAll(/^# TYPE (wbsync_\w+) (\w+)$/gm)].map((m) => (m[2] === 'histogram' ? `${m[1]}_bucket` : m[1]!)).filter((f) => new RegExp(`^${f}[{ ]`, 'm').test(text));
    expect(exposed.length).toBeGreaterThanOrEqual(FAMILIES_KEPT.length + 3);
    for (const f of exposed) expect(names.has(f), f).toBe(true);
    for (const f of ['nodejs_eventloop_lag_p99_seconds', 'nodejs_heap_size_used_bytes', 'process_cpu_seconds_total']) expect(names.has(f), f).toBe(true);
  });

  it('answers the scraper in OpenMetrics, and plain clients in the text format promtool lints clean', async () => {
    const om = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { accept: 'application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5' } });
    expect(om.headers.get('content-type')).toMatch(/^application\/openmetrics-text; version=1\.0\.0/);
    expect((await om.text()).endsWith('# EOF\n')).toBe(true);
    const plain = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(plain.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const r = promtool(['check', 'metrics'], await plain.text());
    // promtool's lint also flags prom-client's own default gauges named *_total
    // (nodejs_active_handles_total...); the wbsync families must have no finding at all
    const findings = `${r.stdout}${r.stderr}`.split('\n').filter(Boolean);
    expect(findings.filter((l) => /wbsync_/.test(l)), findings.join('\n')).toEqual([]);
    expect(findings.every((l) => /^nodejs_\w+_total non-counter metrics should not have "_total" suffix$/.test(l)), findings.join('\n')).toBe(true);
  });

  it('evaluates every dashboard panel query without error, each with data', async () => {
    const exprs = DASHBOARD.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));
    expect(exprs.length).toBeGreaterThanOrEqual(20);
    for (const { panel, expr } of exprs) {
      const r = await prom.query(grafanaQuery(expr));
      expect(r.result.length, `${panel}: ${expr}`).toBeGreaterThan(0);
    }
    const instance = DASHBOARD.templating.list.find((v) => v.name === 'instance')!;
    const def = typeof instance.query === 'string' ? instance.query : instance.query!.query;
    const m = /^label_values\((\w+), (\w+)\)$/.exec(def)!;
    expect(await prom.api<string[]>(`label/${m[2]}/values`, { 'match[]': m[1]! })).toEqual([`127.0.0.1:${port}`]);
  });

  it('loads every alert rule, evaluates each without error, and fires none for a healthy daemon', async () => {
    type Rule = { name: string; query: string; health: string; lastError?: string; state: string };
    const rules = await eventually(async () => {
      const data = await prom.api<{ groups: Array<{ rules: Rule[] }> }>('rules', { type: 'alert' });
      const all = data.groups.flatMap((g) => g.rules);
      return all.length && all.every((r) => r.health !== 'unknown') ? all : null;
    }, 20_000, 'every rule evaluated once');
    expect(rules.map((r) => r.name).sort()).toEqual(alertNames().sort());
    for (const r of rules) {
      expect(r.health, `${r.name}: ${r.lastError}`).toBe('ok');
      await prom.query(r.query); // throws with Prometheus's error text if it does not evaluate
      expect(r.state, r.name).toBe('inactive');
    }
    const alerts = await prom.api<{ alerts: unknown[] }>('alerts');
    expect(alerts.alerts).toEqual([]);
  });
});

// The bad day, end to end, as a new admin lives it (issue 31): the daemon on a short schedule, a
// real Prometheus scraping it with the shipped rules, a webhook receiver. Grace bulk-overwrites the
// Stage column of every deal; Alan fixes one deal in the same pass window; the daemon syncs. One
// tripwire alert arrives; the shipped rule fires; /healthz and the console's Overview show it;
// Ada makes an unrelated later edit on another deal. The undo is taken from the alert and run as
// printed (an argument vector, no shell): every damaged cell is back, Alan's fix and Ada's later
// edit are kept and reported as conflicts, the next pass reports the recovery (no second
// tripwire), and `wbsync diff` shows only the two conflicts.

import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { api, dumpOf } from '../helpers/harness.js';
import { startPrometheus, type RunningPrometheus } from '../helpers/prometheus.js';
import { eventually, getJson, killAll } from './daemon-harness.js';
import { shellWords, startJourney, type Journey } from './incident-journey-harness.js';

const RULES = resolve(import.meta.dirname, '../../deploy/prometheus/wbsync-rules.yml');

describe.each(['spec', 'observed'] as Dialect[])('the bad day, end to end (%s dialect)', (dialect) => {
  let j: Journey | undefined;
  let prom: RunningPrometheus | undefined;
  afterEach(async () => {
    await prom?.stop();
    await killAll();
    await j?.close();
    j = prom = undefined;
  });

  it('one alert, the rule firing, healthz and the console showing it; its undo keeps the fix and the later edit', { timeout: 240_000 }, async () => {
    j = await startJourney(dialect, `mass-${dialect}`);
    const { emu } = j;
    prom = await startPrometheus(
      resolve(j.db, '..'),
      ['global:', '  scrape_interval: 1s', '  evaluation_interval: 1s', 'rule_files:', `  - ${JSON.stringify(RULES)}`, 'scrape_configs:', '  - job_name: wbsync', '    static_configs:', `      - targets: ['127.0.0.1:${j.port}']`, ''].join('\n'),
    );

    const d = dumpOf(emu);
    const stage = d.columns.find((c) => c.name === 'Stage' && !c.isDeleted)!;
    const deals = d.records.filter((r) => r.module === stage.module && !r.isDeleted && !r.isArchived && !r.parentRecord);
    const before = new Map(d.values.filter((v) => v.column === stage._id && !v.isDeleted).map((v) => [v.record as string, v]));
    expect(before.size).toBeGreaterThanOrEqual(10);
    const empty = deals.filter((r) => !before.has(r._id));
    const alreadyLost = [...before.values()].filter((v) => v.value === 'Lost').length;
    const [fixed, later] = deals.filter((r) => before.has(r._id) && !['Lost', 'Negotiating', 'Won'].includes(before.get(r._id)!.value as string));

    // right after a pass: Grace marks every deal Lost (filling the empty ones), then Alan fixes one
    await j.morePasses(1);
    for (const r of deals) {
      const cell = before.get(r._id);
      const res = cell
        ? await api(emu, 'PUT', `/record-values/${cell._id}`, { value: 'Lost' }, j.keys.grace)
        : await api(emu, 'POST', '/record-values', { record: r._id, column: stage._id, value: 'Lost', collectionName: r.collectionName, module: r.module, workspace: r.workspace }, j.keys.grace);
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    }
    expect((await api(emu, 'PUT', `/record-values/${before.get(fixed!._id)!._id}`, { value: 'Negotiating' }, j.keys.alan)).status).toBe(200);

    // one tripwire alert, counted as the console counts, blaming Grace only, its undo pinned
    const alert = await eventually(() => j!.rx.alerts('tripwire')[0], 40_000, 'the tripwire alert');
    expect(alert).toMatchObject({ moduleId: stage.module, workspaceId: j.workspaceId, details: { held: true, kind: 'mass-change', columns: [stage._id] } });
    expect(alert.details.by).toEqual([expect.objectContaining({ id: emu.users[1]!.id, name: 'Grace Hopper' })]);
    expect(alert.details.what).toEqual([`column Stage: ${empty.length} added · ${before.size - alreadyLost} changed · 0 removed (${empty.length + before.size - alreadyLost} of ${deals.length} cells, ${Math.round(((empty.length + before.size - alreadyLost) * 100) / deals.length)}%)`]);
    expect(alert.undo).toBe(`wbsync rollback --incident ${alert.details.incident} --pause-automations`);
    expect(shellWords(alert.undo)).toEqual(alert.undoArgv);

    // Prometheus: the shipped rule fires, its annotation carrying the undo
    const firing = await eventually(
      async () => (await prom!.api<{ alerts: Array<{ labels: Record<string, string>; annotations: Record<string, string>; state: string }> }>('alerts')).alerts.find((a) => a.labels.alertname === 'WbsyncTripwire' && a.state === 'firing'),
      40_000,
      'WbsyncTripwire firing',
    );
    expect(firing.annotations.command).toBe(`${alert.undo} --dry-run`);
    expect(firing.labels).toMatchObject({ incident: String(alert.details.incident), kind: 'mass-change', module: stage.module });

    // /healthz and the console's Overview show it, with the undo and a link to what changed
    const health = await getJson(j.port, '/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'tripwire', tripwires: [expect.objectContaining({ incident: alert.details.incident, undo: alert.undo })] });
    const overview = await (await fetch(`http://127.0.0.1:${j.port}/ui/`)).text();
    expect(overview).toContain(alert.undo);
    expect(overview).toContain(`/ui/changes?from=${alert.details.snapshot}&amp;to=${alert.details.pass}&amp;module=${stage.module}`);
    expect(overview).not.toContain('No open alert episode.');

    // an unrelated later edit by Ada on another deal (after the damage was synced)
    const laterValue = before.get(later!._id)!.value === 'New' ? 'Contacted' : 'New';
    expect((await api(emu, 'PUT', `/record-values/${before.get(later!._id)!._id}`, { value: laterValue }, j.keys.ada)).status).toBe(200);

    // a rollback without the pin (the old undo) says what it would overwrite: Alan's fix is a conflict
    const unpinned = await j.cli(['wbsync', 'rollback', '--module', stage.module, '--to-snapshot', String(alert.details.snapshot), '--column', stage._id, '--dry-run']);
    expect(unpinned.status, unpinned.stdout + unpinned.stderr).toBe(5);
    const said = unpinned.stdout.slice(unpinned.stdout.indexOf('conflicts —')).split('\n').find((l) => l.includes(`${fixed!.name} · Stage`));
    expect(said, unpinned.stdout).toMatch(/"Negotiating" → .*\(the feed shows Grace Hopper changed it at .*, then Alan Turing at /);

    // the undo, run as printed: every damaged cell back; the fix and the later edit kept, as conflicts
    const run = await j.cli(alert.undoArgv);
    expect(run.status, run.stdout + run.stderr).toBe(5);
    expect(run.stdout).toContain(`incident ${alert.details.incident}: the damage pinned to Grace Hopper's writes`);
    const conflicts = run.stdout.slice(run.stdout.indexOf('conflicts —')).split('\n').filter((l) => l.startsWith('  cell '));
    expect(conflicts, run.stdout).toHaveLength(2);
    expect(conflicts.find((l) => l.includes(fixed!.name))).toMatch(/"Negotiating" → .*\(edited after the damage of incident \d+: by Alan Turing at /);
    expect(conflicts.find((l) => l.includes(later!.name))).toContain(`"${laterValue}" → `);
    const now = dumpOf(emu).values.filter((v) => v.column === stage._id && !v.isDeleted);
    for (const r of deals) {
      const cell = now.find((v) => v.record === r._id);
      if (r._id === fixed!._id) expect(cell?.value).toBe('Negotiating');
      else if (r._id === later!._id) expect(cell?.value).toBe(laterValue);
      else expect(cell?.value ?? null, r.name as string).toBe(before.get(r._id)?.value ?? null);
    }

    // the next passes report the recovery: no second tripwire blaming Ada
    const recovered = await eventually(() => j!.rx.alerts('tripwire_recovered')[0], 40_000, 'the recovery');
    expect(recovered.details).toMatchObject({ incident: alert.details.incident });
    await j.morePasses(2);
    expect(j.rx.alerts('tripwire')).toHaveLength(1);
    expect((await getJson(j.port, '/healthz')).body).toMatchObject({ status: 'ok', tripwires: [] });
    const after = await (await fetch(`http://127.0.0.1:${j.port}/ui/`)).text();
    expect(after).toMatch(/recovered .* by run \d+/);

    // diff against the snapshot before: only the two conflicts differ
    const diff = await j.cli(['wbsync', 'diff', '--snapshot', String(alert.details.snapshot), '--module', stage.module, '--json']);
    expect(diff.status, diff.stderr).toBe(1);
    const entries = (JSON.parse(diff.stdout) as { modules: Array<{ entries: Array<{ entity: string; label: string }> }> }).modules.flatMap((m) => m.entries);
    expect(entries.map((e) => e.label).sort(), diff.stdout).toEqual([`${fixed!.name} · Stage`, `${later!.name} · Stage`].sort());
  });
});

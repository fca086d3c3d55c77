// The bad day with a deleted module, end to end (issue 31): the daemon on a short schedule and a
// webhook receiver; Grace deletes a module; one tripwire alert names who did it (the feed's
// deletion row, which on the deployed service names no module) and the restore that undoes it;
// /healthz shows it; the undo, run as printed (an argument vector, no shell), brings the module
// back; the next pass reports the recovery — no second tripwire blaming the key's owner.

import { afterEach, describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { api, dumpOf } from '../helpers/harness.js';
import { eventually, getJson, killAll } from './daemon-harness.js';
import { shellWords, startJourney, type Journey } from './incident-journey-harness.js';

describe.each(['spec', 'observed'] as Dialect[])('a deleted module, end to end (%s dialect)', (dialect) => {
  let j: Journey | undefined;
  afterEach(async () => {
    await killAll();
    await j?.close();
    j = undefined;
  });

  it('one alert naming who deleted it; its undo restores the module; the recovery is reported, not a second tripwire', { timeout: 180_000 }, async () => {
    j = await startJourney(dialect, `module-${dialect}`);
    const { emu } = j;
    const d = dumpOf(emu);
    const mod = d.modules.find((m) => !m.isDeleted && m.name === 'Hiring')!;
    const records = d.records.filter((r) => r.module === mod._id && !r.isDeleted && !r.isArchived).length;

    const deleted = await api(emu, 'DELETE', `/modules/${mod._id}`, undefined, j.keys.grace);
    const by = deleted.status === 200 ? 'Grace Hopper' : 'Ada Lovelace';
    if (deleted.status !== 200) expect((await api(emu, 'DELETE', `/modules/${mod._id}`, undefined, j.keys.ada)).status).toBe(200); // members may not delete here

    const alert = await eventually(() => j!.rx.alerts('tripwire')[0], 40_000, 'the tripwire alert');
    expect(alert).toMatchObject({ moduleId: mod._id, summary: `module Hiring was deleted by ${by} (1 rows)`, details: { kind: 'module-deleted', held: true } });
    expect(alert.details.by).toEqual([expect.objectContaining({ name: by, rows: 1 })]);
    expect(alert.undo).toBe(`wbsync restore module ${mod._id} --snapshot ${alert.details.snapshot} --pause-automations`);
    expect(shellWords(alert.undo)).toEqual(alert.undoArgv);
    expect((await getJson(j.port, '/healthz')).body).toMatchObject({ status: 'tripwire', tripwires: [expect.objectContaining({ kind: 'module-deleted', undo: alert.undo })] });

    const run = await j.cli(alert.undoArgv);
    expect(run.status, run.stdout + run.stderr).toBe(0);
    const restored = dumpOf(emu).modules.find((m) => !m.isDeleted && m.name === 'Hiring' && m._id !== mod._id)!;
    expect(dumpOf(emu).records.filter((r) => r.module === restored._id && !r.isDeleted && !r.isArchived)).toHaveLength(records);

    const recovered = await eventually(() => j!.rx.alerts('tripwire_recovered')[0], 40_000, 'the recovery');
    expect(recovered.details).toMatchObject({ incident: alert.details.incident, how: expect.stringMatching(/^restore run \d+ finished /) });
    await j.morePasses(2);
    expect(j.rx.alerts('tripwire')).toHaveLength(1);
    expect((await getJson(j.port, '/healthz')).body).toMatchObject({ status: 'ok', tripwires: [] });
  });
});

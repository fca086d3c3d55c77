// Text from the service printed for a person: a record renamed with a right-to-left override
// (U+202E, "Trojan Source") and a terminal escape shows them escaped in `wbsync diff`'s human
// output, so the line reads as it is; its --json output keeps the name exactly.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { api, makeHarness, runCliCaptured, type Harness } from '../helpers/harness.js';

const NAME = 'invoice\u202Egpj.exe \u2066x\u2069\u001B[2J';
const SHOWN = 'invoice\\u202egpj.exe \\u2066x\\u2069\\u001b[2J';

describe.each(['spec', 'observed'] as Dialect[])('hidden characters in CLI output (%s dialect)', (dialect) => {
  let h: Harness;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    h = await makeHarness(dialect);
    await h.sync({ full: true });
    await h.emu.idle();
    env = { WBSYNC_BASE_URL: h.emu.baseUrl, WBSYNC_API_KEY: h.emu.apiKey, WBSYNC_DB: h.dbPath, WBSYNC_LOG_LEVEL: 'silent' };
  });
  afterAll(async () => {
    await h?.close();
  });

  it('diff shows a record name with U+202E escaped; --json keeps it exact', async () => {
    const before = (await h.sync()).snapshot;
    const state = h.store.stateAt(before)!;
    const mod = state.modules()[0]!;
    const rec = state.records(mod.id).find((r) => r.parentRecordId === null && !r.isArchived)!;
    expect((await api(h.emu, 'PUT', `/records/${rec.id}`, { name: NAME })).status).toBe(200);
    const after = (await h.sync()).snapshot;
    const pair = ['--snapshot', String(before), '--against', String(after)];

    const human = await runCliCaptured(['diff', ...pair], env);
    expect(human.code, human.err).toBe(1);
    expect(human.out).toContain(SHOWN);
    expect(human.out + human.err).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u001B]/);

    const json = await runCliCaptured(['diff', ...pair, '--json'], env);
    expect(json.code).toBe(1);
    const doc = JSON.parse(json.out) as { modules: Array<{ entries: Array<{ fields?: Array<{ field: string; after: unknown }> }> }> };
    const renamed = doc.modules.flatMap((m) => m.entries).flatMap((e) => e.fields ?? []).find((f) => f.field === 'name')?.after;
    expect(renamed).toBe(NAME);
  });
});

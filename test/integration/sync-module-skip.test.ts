// A 403 or 404 on one module (access revoked, deleted mid-pass) skips that module with its reason;
// the pass goes on, ends listing it (exit 5 from the CLI), and the module's history is untouched.

import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import type { Dialect } from '../../src/emulator/types.js';
import { api, makeHarness, view, type Harness } from '../helpers/harness.js';

describe.each(['spec', 'observed'] as Dialect[])('a module refused mid-pass (%s dialect)', (dialect) => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it.each([403, 404])('HTTP %i on one module skips only that module', async (status) => {
    h = await makeHarness(dialect);
    await h.sync({ full: true });
    const before = view(h.store, 'records');
    const mods = view(h.store, 'modules', 'ORDER BY name');
    const victim = mods[0];
    const other = mods[1];
    // a change in both modules; the victim's must not be taken, the other's must
    const vRec = before.find((r) => r.module_id === victim.id && !r.parent_record_id)!;
    const oRec = before.find((r) => r.module_id === other.id && !r.parent_record_id)!;
    expect((await api(h.emu, 'PUT', `/records/${vRec.id}`, { name: 'victim change' })).status).toBe(200);
    expect((await api(h.emu, 'PUT', `/records/${oRec.id}`, { name: 'other change' })).status).toBe(200);
    h.emu.faults.add({ method: 'GET', route: new RegExp(`^/api/collections/${victim.id}$`), status, times: 10 });

    let out = '';
    const code = await runCli(['sync', '--full', '--json', '--db', h.dbPath], {
      stdout: { write: (s) => void (out += s) },
      stderr: { write: () => undefined },
      env: { WBSYNC_BASE_URL: h.emu.baseUrl, WBSYNC_API_KEY: h.emu.apiKey, WBSYNC_LOG_LEVEL: 'silent' },
    });
    const result = JSON.parse(out) as { status: string; failures: Array<{ moduleId: string; reason: string }> };
    expect(code).toBe(5);
    expect(result.status).toBe('complete');
    expect(result.failures).toEqual([expect.objectContaining({ moduleId: victim.id, reason: expect.stringMatching(/collections/) })]);
    // the other module moved on; the victim kept its history and its old state
    expect(view(h.store, 'records', 'WHERE id = ?', [oRec.id])[0].name).toBe('other change');
    expect(view(h.store, 'records', 'WHERE id = ?', [vRec.id])[0].name).toBe(vRec.name);
    expect(view(h.store, 'records', 'WHERE module_id = ?', [victim.id]).length).toBe(before.filter((r) => r.module_id === victim.id).length);
    // once the refusal is gone, the next pass takes the victim's change
    h.emu.faults.clear();
    await h.sync();
    expect(view(h.store, 'records', 'WHERE id = ?', [vRec.id])[0].name).toBe('victim change');
  });
});

// After a restore, as the guide goes on (both dialects, the real CLI in a child process so that
// everything it prints is seen): `restore module` and `drill` print no MaxListenersExceededWarning;
// `diff --module` with the deleted module's id or its copy's id is paired with the snapshot it came
// from through the restore journal (before and after the next sync), an impossible pairing is
// refused with the command that works; and the console links the two modules both ways.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialect, RunningEmulator } from '../../src/emulator/types.js';
import { requireBuild, spawnCli, stopChildren } from '../helpers/fault-kit.js';
import { dumpOf } from '../helpers/harness.js';
import { syncedEmulator, type SyncedEmulator } from '../helpers/synced-emulator.js';
import { serveConsole } from '../helpers/ui-kit.js';

const LEAK = /MaxListenersExceeded|EventTarget memory leak/;

describe.each(['spec', 'observed'] as Dialect[])('after a restore (%s dialect)', (dialect) => {
  let synced: SyncedEmulator;
  let emu: RunningEmulator;
  let env: Record<string, string>;
  let oldId: string;
  let newId: string;
  let fromSnapshot: number;
  const cli = async (...args: string[]): Promise<{ code: number | null; out: string; err: string }> => {
    const c = spawnCli(args, env);
    const { code } = await c.exited;
    return { code, out: c.out(), err: c.err() };
  };

  beforeAll(async () => {
    requireBuild();
    // the syncs run in the child process too, as the guide's commands do
    synced = await syncedEmulator({ dialect, logLevel: 'warn', syncs: 0 });
    ({ emu } = synced);
    env = synced.env as Record<string, string>;
    expect((await cli('sync')).code).toBe(0);
    const mod = dumpOf(emu).modules.find((m) => m.name === 'Hiring')!;
    oldId = mod._id as string;
    const del = await fetch(`${emu.baseUrl}/api/modules/${oldId}`, { method: 'DELETE', headers: { 'x-api-key': emu.apiKey } });
    expect(del.status).toBeLessThan(300);
    await emu.idle();
    expect((await cli('sync')).code).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await stopChildren();
    await synced?.stop();
  });

  it('restores the deleted module without a MaxListenersExceededWarning', { timeout: 120_000 }, async () => {
    const r = await cli('restore', 'module', oldId, '--json');
    expect(r.code, r.err).toBe(0);
    expect(r.err).not.toMatch(LEAK);
    expect(r.out).not.toMatch(LEAK);
    const doc = JSON.parse(r.out) as { moduleId: string; snapshot: number };
    newId = doc.moduleId;
    fromSnapshot = doc.snapshot;
    expect(newId).toMatch(/^[0-9a-f]{24}$/);
    expect(newId).not.toBe(oldId);
    expect(fromSnapshot).toBe(1);
  });

  it('diffs the restored copy, by either id, against the snapshot it came from', { timeout: 120_000 }, async () => {
    // the copy's id: no snapshot holds it yet; it is paired with its source through the journal
    const byNew = await cli('diff', '--module', newId);
    expect(byNew.code, byNew.out + byNew.err).toBe(0);
    expect(byNew.out).toContain(`snapshot ${fromSnapshot} vs the live service: no differences`);
    expect(byNew.out).toContain(`wbsync's restore of module ${oldId} from snapshot ${fromSnapshot}`);
    // the deleted module's id: the latest snapshot lacks it; compared from the restore's snapshot
    const byOld = await cli('diff', '--module', oldId, '--json');
    expect(byOld.code, byOld.out + byOld.err).toBe(0);
    const doc = JSON.parse(byOld.out) as { snapshot: number; equal: boolean; pairing: string };
    expect(doc).toMatchObject({ snapshot: fromSnapshot, equal: true });
    expect(doc.pairing).toContain(`as ${newId}`);
    // an explicit snapshot that holds neither: refused, with the command that works
    const refused = await cli('diff', '--module', oldId, '--snapshot', '2');
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(`snapshot 2 does not hold module ${oldId}`);
    expect(refused.err).toContain(`wbsync diff --module ${oldId} --snapshot ${fromSnapshot}`);
    // offline (against another snapshot) the copy cannot be read live: the hint names the live form
    const offline = await cli('diff', '--module', newId, '--against', '2');
    expect(offline.code).toBe(2);
    expect(offline.err).toContain(`wbsync diff --module ${oldId} --snapshot ${fromSnapshot} --restored ${newId}`);

    // the next sync holds the copy: by its id it is compared as itself; by the old id, paired still
    expect((await cli('sync')).code).toBe(0);
    expect((await cli('diff', '--module', newId)).code).toBe(0);
    const again = await cli('diff', '--module', oldId);
    expect(again.code, again.out + again.err).toBe(0);
    expect(again.out).toContain('no differences');
  });

  it('links the deleted module and its restored copy both ways in the console', { timeout: 60_000 }, async () => {
    const c = await serveConsole(env.WBSYNC_DB!);
    try {
      const gone = await (await fetch(`${c.url}/recover?module=${oldId}`)).text();
      expect(gone).toContain('restored as</span>');
      expect(gone).toContain(`href="/ui/recover?module=${newId}"`);
      expect(gone).toMatch(/— deleted \(last in #\d+\) · restored as “Hiring”/);
      const copy = await (await fetch(`${c.url}/recover?module=${newId}`)).text();
      expect(copy).toContain('restored from</span>');
      expect(copy).toContain(`href="/ui/recover?module=${oldId}&amp;snapshot=${fromSnapshot}"`);
      const page = await (await fetch(`${c.url}/module/${newId}`)).text();
      expect(page).toContain(`href="/ui/recover?module=${oldId}&amp;snapshot=${fromSnapshot}"`);
      const notHere = await (await fetch(`${c.url}/module/${oldId}`)).text();
      expect(notHere).toContain(`href="/ui/recover?module=${newId}"`);
    } finally {
      await c.close();
    }
  });

  it('runs a drill without a MaxListenersExceededWarning', { timeout: 180_000 }, async () => {
    const r = await cli('drill', '--dialect', dialect, '--json');
    expect(r.code, r.err).toBe(0);
    expect(r.err).not.toMatch(LEAK);
    expect(r.out).not.toMatch(LEAK);
  });
});

// The freshness window: a change that leaves no signal at all (an amendment edit on the deployed
// service, an automation change in an idle module, a grant without a logged row) reaches the
// mirror through the rolling re-verification within freshness.maxStalenessMinutes — spread over the
// passes in the window, every part read in full once, recorded per pass.

import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import type { Dialect } from '../../src/emulator/types.js';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/port.js';
import { runPass } from '../../src/sync/pass.js';
import { api, dumpOf, makeHarness, silentLogger, view, type Harness } from '../helpers/harness.js';

const MIN = 60_000;
const WINDOW = 60 * MIN;

describe.each(['spec', 'observed'] as Dialect[])('freshness window (%s dialect)', (dialect) => {
  let h: Harness | undefined;
  let store: Store | undefined;
  afterEach(async () => {
    store?.close();
    store = undefined;
    await h?.close();
    h = undefined;
  });

  it('brings changes without any signal into the mirror within the window, a slice per pass', async () => {
    h = await makeHarness(dialect);
    const clock = new ManualClock();
    store = openStore(join(h.dir, 'fresh.db'), { clock });
    const sync = () => runPass({ client: h!.client, store: store!, logger: silentLogger }, { maxStalenessMs: WINDOW });
    expect((await sync()).kind).toBe('full');
    const modules = view(store, 'modules');
    expect(modules.length).toBeGreaterThan(1);

    // an automation edit (never logged, moves no timestamp) in every module that has one
    const d = dumpOf(h.emu);
    const autos = d.automations.filter((a) => !a.isDeleted && a.module);
    expect(autos.length).toBeGreaterThan(0);
    for (const a of autos) expect((await api(h.emu, 'PUT', `/automations/${a._id}`, { isActive: !a.isActive })).status).toBe(200);
    await h.emu.idle();
    const stale = () => autos.filter((a) => view(store!, 'automations', 'WHERE id = ?', [a._id])[0]?.is_active === (a.isActive ? 1 : 0)).length;

    // one pass right after: nothing is due, nothing re-read, and the edit is not seen
    clock.advance(MIN);
    const first = await sync();
    expect(first.kind).toBe('incremental');
    expect(first.workspaces[0].reverified).toMatchObject({ modules: [], workspace: false, requests: 0 });
    // the deployed service leaves no trace of it; the spec service logs every write
    expect(stale()).toBe(dialect === 'observed' ? autos.length : 0);

    // passes every 10 minutes: each reads a slice, and within the window everything is re-read
    const reread = new Set<string>();
    let requests = 0;
    for (let t = 10; t <= 60; t += 10) {
      clock.advance(10 * MIN);
      const pass = await sync();
      expect(pass.failures).toEqual([]);
      const r = pass.workspaces[0].reverified!;
      for (const id of r.modules) reread.add(id);
      requests += r.requests;
      expect(r.oldestAgeSeconds).toBeLessThanOrEqual(WINDOW / 1000);
    }
    expect([...reread].sort()).toEqual(modules.map((m) => m.id as string).sort());
    expect(stale()).toBe(0);
    // about one full pass in a window, spread over several passes
    const full = (store.getSnapshot(1)!.summary as { requests: number }).requests;
    expect(requests).toBeGreaterThan(0);
    expect(requests).toBeLessThan(1.5 * full);
    const perPass = store.listSnapshots().filter((s) => s.kind === 'incremental').map((s) => (s.summary.workspaces as Array<{ reverified?: { modules: string[] } }>)[0].reverified?.modules.length ?? 0);
    expect(perPass.filter((n) => n > 0).length).toBeGreaterThan(1);
    // every part carries a verification time within the window
    const parts = store.verifiedParts(view(store, 'workspaces')[0].id as string);
    for (const p of parts) expect(clock.now().getTime() - Date.parse(p.verifiedAt)).toBeLessThanOrEqual(WINDOW);
  });

  it('marks every part verified on a full pass, and a vanished module drops out of the parts', async () => {
    h = await makeHarness(dialect);
    const clock = new ManualClock();
    store = openStore(join(h.dir, 'fresh.db'), { clock });
    const sync = (full = false) => runPass({ client: h!.client, store: store!, logger: silentLogger }, { full, maxStalenessMs: WINDOW });
    await sync(true);
    const ws = view(store, 'workspaces')[0].id as string;
    const parts = store.verifiedParts(ws);
    expect(parts.filter((p) => p.kind === 'module')).toHaveLength(view(store, 'modules').length);
    expect(parts.filter((p) => p.kind === 'workspace')).toEqual([expect.objectContaining({ id: ws, verifiedAt: store.getSnapshot(1)!.startedAt })]);
    const gone = view(store, 'modules')[0].id as string;
    expect((await api(h.emu, 'DELETE', `/modules/${gone}`)).status).toBe(200);
    clock.advance(MIN);
    await sync();
    expect(store.verifiedParts(ws).some((p) => p.id === gone)).toBe(false);
  });
});

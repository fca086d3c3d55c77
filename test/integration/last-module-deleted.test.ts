// Regression: a person deleting a workspace's last board is a deletion, not a lost access. The
// "workspace lists no module any more" hold (issue 31) is for a service that stops answering for
// what the key could see; when the feed names every vanished module's deletion, the pass records
// them as gone (history keeps them, restore brings them back) instead of failing every pass until
// someone runs `sync --accept-loss`. Found by the differential test against the rebuilt deployed
// service (seed 60917, live), where the suite's workspace came down to one board and lost it.

import { afterEach, describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { createHttpClient } from '../../src/api/http-client.js';
import { runPass } from '../../src/sync/pass.js';
import { api, makeHarness, silentLogger, unwrap, view, type Harness } from '../helpers/harness.js';
import { startRewriteProxy } from '../helpers/rewrite-proxy.js';

describe.each(['spec', 'observed'] as Dialect[])('a workspace whose last module a person deletes (%s dialect)', (dialect) => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('the pass records the module as gone, not held; it stays in history', async () => {
    h = await makeHarness(dialect, { seed: 'none' });
    const ws = unwrap((await api(h.emu, 'POST', '/workspaces', { name: 'One board' })).body, 'workspace');
    const mod = unwrap((await api(h.emu, 'POST', `/modules/${ws._id}`, { name: 'Only board' })).body, 'module');
    const col = unwrap((await api(h.emu, 'POST', `/collections/${mod._id}`, { name: 'Group' })).body, 'collection');
    await api(h.emu, 'POST', `/records/${col._id}`, { name: 'Row' });
    expect((await h.sync({ full: true })).failures).toEqual([]);
    const before = h.store.latestCompleteSnapshot()!;

    expect((await api(h.emu, 'DELETE', `/modules/${mod._id}`)).status).toBe(200);
    h.emu.clock.advance(1000);
    const pass = await h.sync();
    expect(pass.kind).toBe('incremental');
    expect(pass.failures).toEqual([]);
    expect(view(h.store, 'modules', 'WHERE id = ?', [mod._id])).toEqual([]);
    // the earlier snapshot still holds it
    expect(h.store.stateAt(before)!.module(mod._id)?.name).toBe('Only board');
  });

  it('a workspace that lists no module with no deletion in the feed is still held', async () => {
    h = await makeHarness(dialect, { seed: 'none' });
    const ws = unwrap((await api(h.emu, 'POST', '/workspaces', { name: 'Hidden board' })).body, 'workspace');
    const mod = unwrap((await api(h.emu, 'POST', `/modules/${ws._id}`, { name: 'Board' })).body, 'module');
    expect((await h.sync({ full: true })).failures).toEqual([]);
    // the service answers the module list empty, with no feed row (as a lost access looks)
    const proxy = await startRewriteProxy(h.emu.baseUrl);
    const client = createHttpClient({ baseUrl: proxy.baseUrl, apiKey: h.emu.apiKey, concurrency: 4, retries: 1, backoffBaseMs: 1, backoffMaxMs: 5, timeoutMs: 10_000 });
    proxy.answer = (method, path) => (method === 'GET' && path === `/api/modules/${ws._id}` ? [] : null);
    let pass: Awaited<ReturnType<typeof runPass>>;
    try {
      pass = await runPass({ client, store: h.store, logger: silentLogger }, {});
    } finally {
      await client.close();
      await proxy.close();
    }
    expect(pass.failures.map((f) => f.reason).join('\n')).toMatch(/^held: the service lists none of the 1 modules/);
    expect(view(h.store, "modules", "WHERE id = ?", [mod._id])).toHaveLength(1);
  });
});

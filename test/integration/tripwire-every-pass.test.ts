// The tripwire runs in every pass, `wbsync sync` too (not only the daemon's): a bulk overwrite
// found by a manual sync is an incident with a pinned undo, held and printed; and a pass whose
// service answers a well-formed empty workspace list (the key lost access) is held — exit non-zero
// with a clear message, nothing marked gone, and `prune --keep-last 1` keeps the good snapshot.

import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { Dialect, RunningEmulator } from '../../src/emulator/types.js';
import { api, dumpOf, runCliCaptured, tempDir } from '../helpers/harness.js';
import { startRewriteProxy, type RewriteProxy } from '../helpers/rewrite-proxy.js';

describe.each(['spec', 'observed'] as Dialect[])('the tripwire in every pass (%s dialect)', (dialect) => {
  let emu: RunningEmulator | undefined;
  let proxy: RewriteProxy | undefined;
  let cleanup: (() => void) | undefined;
  afterEach(async () => {
    await proxy?.close();
    await emu?.stop();
    cleanup?.();
    proxy = emu = cleanup = undefined;
  });

  async function setUp(): Promise<{ db: string; cli: (...argv: string[]) => ReturnType<typeof runCliCaptured>; q: <T>(sql: string) => T[] }> {
    emu = await startEmulator({ dialect, seed: 'demo' });
    proxy = await startRewriteProxy(emu.baseUrl);
    const t = tempDir('wbsync-tripwire-every-pass-');
    cleanup = t.cleanup;
    const db = join(t.dir, 'w.db');
    const config = join(t.dir, 'wbsync.json');
    writeFileSync(config, JSON.stringify({ tripwire: { minCells: 5, minRecords: 5 } }));
    const env = { WBSYNC_BASE_URL: proxy.baseUrl, WBSYNC_API_KEY: emu.apiKey, WBSYNC_DB: db, WBSYNC_CONFIG: config, WBSYNC_LOG_LEVEL: 'silent' };
    const q = <T>(sql: string): T[] => {
      const d = new Database(db, { readonly: true });
      try {
        return d.prepare(sql).all() as T[];
      } finally {
        d.close();
      }
    };
    return { db, cli: (...argv) => runCliCaptured(argv, env), q };
  }

  it('a service that answers an empty workspace list: held, exit 5 with a clear message, nothing lost, prune keeps the good snapshot', async () => {
    const { cli, q } = await setUp();
    expect((await cli('sync', '--full')).code).toBe(0);
    const modules = q<{ n: number }>('SELECT count(*) AS n FROM modules')[0]!.n;
    const records = q<{ n: number }>('SELECT count(*) AS n FROM records')[0]!.n;
    expect(modules).toBeGreaterThan(0);

    proxy!.answer = (method, path) => (method === 'GET' && path === '/api/workspaces' ? { workspaces: [] } : null);
    const lost = await cli('sync', '--full');
    expect(lost.code, lost.out + lost.err).toBe(5);
    expect(lost.out).toMatch(/held: the service no longer lists this workspace \(\d+ modules, \d+ records\) — nothing marked gone/);
    expect(lost.out).toMatch(/tripwire: incident \d+: workspace .* is not listed any more/);
    expect(lost.out).toContain("'wbsync sync --accept-loss'");
    expect(lost.out).toMatch(/gone: none/);
    // nothing lost: the latest snapshot still shows everything
    expect(q<{ n: number }>('SELECT count(*) AS n FROM modules')[0]!.n).toBe(modules);
    expect(q<{ n: number }>('SELECT count(*) AS n FROM records')[0]!.n).toBe(records);
    expect(q<{ kind: string; status: string }>('SELECT kind, status FROM incidents')).toEqual([{ kind: 'workspace-lost', status: 'open' }]);
    // a second pass while it lasts: held again, not alerted again
    expect((await cli('sync')).code).toBe(5);
    expect(q('SELECT id FROM incidents')).toHaveLength(1);

    const prune = await cli('prune', '--keep-last', '1');
    expect(prune.code, prune.out + prune.err).toBe(0);
    const first = q<{ id: number }>('SELECT min(id) AS id FROM snapshot_runs')[0]!.id;
    expect(q<{ snapshot_id: number }>('SELECT snapshot_id FROM snapshot_forgets').map((r) => r.snapshot_id)).not.toContain(first);
    expect(q<{ n: number }>('SELECT count(*) AS n FROM modules')[0]!.n).toBe(modules);

    // the access is back: the next pass carries on and the loss is over
    proxy!.answer = null;
    const back = await cli('sync');
    expect(back.code, back.out + back.err).toBe(0);
    expect(back.out).toMatch(/tripwire: incident \d+ recovered \(the service lists it again\)/);
    expect(q<{ status: string }>('SELECT status FROM incidents')).toEqual([{ status: 'recovered' }]);
  });

  it('a bulk overwrite found by a manual sync: an incident with the pinned undo, printed and held', async () => {
    const { cli, q } = await setUp();
    expect((await cli('sync', '--full')).code).toBe(0);
    const d = dumpOf(emu!);
    const counts = new Map<string, number>();
    const text = new Set(d.columns.filter((c) => !c.isDeleted && c.type === 'text').map((c) => c._id as string));
    for (const v of d.values.filter((x) => !x.isDeleted && text.has(x.column as string))) counts.set(v.column as string, (counts.get(v.column as string) ?? 0) + 1);
    const [column] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]!;
    const cells = d.values.filter((x) => !x.isDeleted && x.column === column);
    expect(cells.length).toBeGreaterThanOrEqual(5);
    for (const v of cells) expect((await api(emu!, 'PUT', `/record-values/${v._id}`, { value: 'overwritten by an import' })).status).toBe(200);
    emu!.clock.advance(1000);
    const r = await cli('sync');
    expect(r.code, r.out + r.err).toBe(0);
    const incident = q<{ id: number; kind: string; columns: string; snapshot_before: number }>('SELECT id, kind, columns, snapshot_before FROM incidents')[0]!;
    expect(incident).toMatchObject({ kind: 'mass-change', columns: JSON.stringify([column]) });
    expect(r.out).toContain(`  undo: wbsync rollback --incident ${incident.id} --pause-automations`);
    expect(q<{ snapshot_id: number }>('SELECT snapshot_id FROM snapshot_holds WHERE released_at IS NULL')).toEqual([{ snapshot_id: incident.snapshot_before }]);
    const json = await cli('sync', '--json');
    expect(JSON.parse(json.out).tripwire).toEqual({ incidents: [], recovered: [] });
  });
});

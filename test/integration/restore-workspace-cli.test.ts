// `wbsync restore workspace` as a user types it (runCli in-process, emulator in-process): the JSON
// document, refusals with their exit codes, and bad flags that change nothing.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/types.js';
import { api, dumpOf } from '../helpers/harness.js';
import { syncedEmulator, type SyncedEmulator } from '../helpers/synced-emulator.js';

describe.each(['spec', 'observed'] as const)('wbsync restore workspace (%s dialect)', (dialect) => {
  let s: SyncedEmulator;
  let emu: RunningEmulator;
  let dir: string;
  const cli = (...argv: string[]): ReturnType<SyncedEmulator['cli']> => s.cli(...argv);
  beforeAll(async () => {
    s = await syncedEmulator({ dialect });
    ({ emu, dir } = s);
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('should error and not write if the flags are wrong: exit 2, one clear line', async () => {
    const ws = dumpOf(emu).workspaces[0]!._id as string;
    const writes = emu.requestLog.entries().filter((e) => e.method !== 'GET').length;
    const both = await cli('restore', 'workspace', ws, '--into-workspace', 'x', '--new-name', 'y');
    expect(both).toMatchObject({ code: 2, err: expect.stringContaining('--into-workspace and --new-name exclude each other') });
    const half = await cli('restore', 'workspace', ws, '--target-url', 'http://127.0.0.1:9');
    expect(half).toMatchObject({ code: 2, err: expect.stringContaining('--target-url and --target-key-file go together') });
    writeFileSync(join(dir, 'bad.json'), '{"u1": 5}');
    const map = await cli('restore', 'workspace', ws, '--map-users', join(dir, 'bad.json'));
    expect(map).toMatchObject({ code: 2, err: expect.stringContaining('--map-users') });
    expect((await cli('restore', 'workspace', ws, '--map-users', join(dir, 'missing.json'))).err).toContain('cannot read it (ENOENT)');
    expect(emu.requestLog.entries().filter((e) => e.method !== 'GET')).toHaveLength(writes);
  });

  it('refuses (exit 6, nothing written) while a workspace of that name exists; restores once it is gone, one JSON document', async () => {
    const ws = dumpOf(emu).workspaces[0]!;
    const writes = emu.requestLog.entries().filter((e) => e.method !== 'GET').length;
    const taken = await cli('restore', 'workspace', ws._id as string, '--json');
    expect(taken.code).toBe(6);
    expect(JSON.parse(taken.out).error.message).toContain(`a workspace named '${ws.name as string}' exists on the target already`);
    expect(emu.requestLog.entries().filter((e) => e.method !== 'GET')).toHaveLength(writes);

    expect((await api(emu, 'DELETE', `/workspaces/${ws._id as string}`)).status).toBe(200);
    const r = await cli('restore', 'workspace', ws._id as string, '--json');
    expect(r.code, r.err).toBe(0);
    const doc = JSON.parse(r.out);
    expect(doc).toMatchObject({ workspaceId: expect.any(String), sourceWorkspaceId: ws._id, members: expect.any(Object), automations: { workspace: expect.any(Number), module: expect.any(Number) }, notRestored: expect.any(Array) });
    expect(doc.modules.length).toBeGreaterThan(1);
    for (const m of doc.modules) expect(m).toMatchObject({ sourceModuleId: expect.any(String), moduleId: expect.any(String), name: expect.any(String), counts: expect.any(Object) });
    expect(dumpOf(emu).workspaces.some((w) => w._id === doc.workspaceId && !w.isDeleted)).toBe(true);
  });
});

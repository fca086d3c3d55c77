// `wbsync diff`: no difference right after a sync; a change live shows field by field (exit 1);
// snapshot vs snapshot offline; and a module restored by wbsync compares equal to its snapshot
// through the journal (exit 0).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandContext } from '../../src/cli/command.js';
import { diffCommand } from '../../src/cli/commands/diff.js';
import { restoreCommand } from '../../src/cli/commands/restore.js';
import { parseCommandArgs } from '../../src/cli/program.js';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/config/logger.js';
import type { Dialect } from '../../src/emulator/types.js';
import { runDiff } from '../../src/restore/index.js';
import { readModuleLive } from '../../src/sync/live-module.js';
import { api, makeHarness, type Harness } from '../helpers/harness.js';

const ATTRIBUTION = 'Restored by wbsync — originally by {author} at {createdAt}.';

async function cli(h: Harness, cmd: typeof diffCommand, argv: string[]): Promise<{ code: number; out: string; doc: any }> {
  let out = '';
  let err = '';
  const { command, args } = parseCommandArgs(cmd, argv);
  const env = { WBSYNC_BASE_URL: h.emu.baseUrl, WBSYNC_API_KEY: h.emu.apiKey, WBSYNC_DB: h.dbPath, WBSYNC_LOG_LEVEL: 'silent' };
  const json = args.flags.json === true;
  const ctx: CommandContext = {
    args,
    json,
    stdout: { write: (t) => void (out += t) },
    stderr: { write: (t) => void (err += t) },
    env,
    config: () => loadConfig({ db: h.dbPath }, env),
    logger: () => createLogger({ level: 'silent' }),
    say: (t) => void (json ? (err += t) : (out += `${t}\n`)),
    emit: (d) => void (out += JSON.stringify(d)),
    signal: new AbortController().signal,
  };
  const code = await command.run!(ctx);
  return { code, out, doc: json ? JSON.parse(out) : null };
}

describe.each(['spec', 'observed'] as Dialect[])('diff (%s dialect)', (dialect) => {
  let h: Harness;
  let first: number;
  beforeAll(async () => {
    h = await makeHarness(dialect);
    first = (await h.sync({ full: true })).snapshot;
    await h.emu.idle();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('finds no difference right after a sync (exit 0)', async () => {
    const r = await cli(h, diffCommand, ['--json']);
    expect(r.doc.modules.flatMap((m: any) => m.entries)).toEqual([]);
    expect(r.doc.workspaces).toEqual([]);
    expect(r.code).toBe(0);
  });

  it('shows a live change field by field (exit 1), and snapshot vs snapshot offline', async () => {
    const state = h.store.stateAt(first)!;
    const mod = state.modules()[0];
    const rec = state.records(mod.id).find((r) => r.parentRecordId === null && !r.isArchived)!;
    expect((await api(h.emu, 'PUT', `/records/${rec.id}`, { name: 'Renamed for diff' })).status).toBe(200);
    const r = await cli(h, diffCommand, ['--module', mod.id]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('"Renamed for diff"');
    const report = await runDiff({ client: h.client, store: h.store, readLive: readModuleLive }, { moduleId: mod.id, attribution: ATTRIBUTION });
    expect(report.modules[0].entries).toEqual([
      expect.objectContaining({ entity: 'record', change: 'changed', id: rec.id, fields: [{ field: 'name', before: rec.name, after: 'Renamed for diff' }] }),
    ]);
    const second = (await h.sync()).snapshot;
    const offline = await cli(h, diffCommand, ['--snapshot', String(first), '--against', String(second), '--json']);
    expect(offline.code).toBe(1);
    expect(offline.doc.modules.flatMap((m: any) => m.entries).map((e: any) => `${e.entity} ${e.change}`)).toEqual(['record changed']);
    expect((await cli(h, diffCommand, ['--snapshot', String(second)])).code).toBe(0);
  });

  it('agrees that a restored module has no difference left (through the journal)', async () => {
    const snap = h.store.latestCompleteSnapshot()!;
    const state = h.store.stateAt(snap)!;
    const mod = state.modules().find((m) => state.records(m.id).length > 0)!;
    expect((await api(h.emu, 'DELETE', `/modules/${mod.id}`)).status).toBe(200);
    const gone = await cli(h, diffCommand, ['--module', mod.id]);
    expect(gone.code).toBe(1);
    const restored = await cli(h, restoreCommand, ['module', mod.id, '--json']);
    expect(restored.code).toBe(0);
    expect(restored.doc.moduleId).toMatch(/^[0-9a-f]{24}$/);
    await h.emu.idle();
    const after = await cli(h, diffCommand, ['--module', mod.id, '--json']);
    expect(after.doc.modules[0].entries).toEqual([]);
    expect(after.code).toBe(0);
    const explicit = await cli(h, diffCommand, ['--module', mod.id, '--restored', restored.doc.moduleId]);
    expect(explicit.code).toBe(0);
    // the whole service too: the restored copy is not reported as an added module
    const all = await cli(h, diffCommand, ['--snapshot', String(snap), '--json']);
    expect(all.doc.workspaces).toEqual([]);
    expect(all.code).toBe(0);
  });
});

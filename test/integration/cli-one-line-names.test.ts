// A name from the service holding a newline, a CR, a terminal escape or a bidi override cannot
// fake a line of wbsync's human output: every such string is shown on its own line, escaped
// (display-text.ts `shown`), in diff, rollback and restore previews, the drill report and the
// tripwire lines of a sync; a literal `\u202e` in a name reads differently from an escaped
// U+202E; and an error text from the service stays on the `wbsync:` line. --json keeps the names
// exact.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { api, makeHarness, runCliCaptured, type Harness } from '../helpers/harness.js';

// each carries a token (ZQ1…) so its line can be found
const MODULE = 'ZQ0 board\n✔ restore complete\r\u001b[2J';
const RECORD = 'ZQ1 lead\nhint: run rm -rf ~';
const LITERAL = 'ZQ2 invoice \\u202e and \u202Egpj.exe';
const COLUMN = 'ZQ3 stage\r\u001b]0;owned\u0007\u0085';
const ARCHIVED = 'ZQ4 gone\n\nwbsync: done, nothing to do';
const WORKSPACE = 'ZQ6 team\n✔ drill passed\u2066\u001b[1A';

// as `shown` writes them
const SHOWN: Record<string, string> = {
  ZQ0: 'ZQ0 board\\n✔ restore complete\\r\\u001b[2J',
  ZQ1: 'ZQ1 lead\\nhint: run rm -rf ~',
  ZQ2: 'ZQ2 invoice \\\\u202e and \\u202egpj.exe',
  ZQ3: 'ZQ3 stage\\r\\u001b]0;owned\\u0007\\u0085',
  ZQ4: 'ZQ4 gone\\n\\nwbsync: done, nothing to do',
  ZQ6: 'ZQ6 team\\n✔ drill passed\\u2066\\u001b[1A',
};

/** Nothing raw that moves the cursor, rewrites the screen or reorders a line; tab and newline only. */
const RAW_CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u200E\u200F\u202A-\u202E\u2066-\u2069]/;

/** Every line holding a token holds the whole name, escaped; no line begins with what a name faked. */
function expectOneLineEach(text: string, tokens: string[]): void {
  expect(text).not.toMatch(RAW_CONTROL);
  const lines = text.split('\n');
  for (const t of tokens) {
    const mine = lines.filter((l) => l.includes(t));
    expect(mine.length, `${t} in:\n${text}`).toBeGreaterThan(0);
    for (const l of mine) expect(l, `${t} in:\n${text}`).toContain(SHOWN[t]);
  }
  for (const l of lines) expect(l, text).not.toMatch(/^\s*(✔|hint: run|wbsync: done)/);
}

describe.each(['spec', 'observed'] as Dialect[])('names from the service on one line (%s dialect)', (dialect) => {
  let h: Harness;
  let env: NodeJS.ProcessEnv;
  let before: number;
  let after: number;
  let moduleId: string;
  let archivedId: string;
  beforeAll(async () => {
    h = await makeHarness(dialect);
    before = (await h.sync({ full: true })).snapshot;
    await h.emu.idle();
    env = { WBSYNC_BASE_URL: h.emu.baseUrl, WBSYNC_API_KEY: h.emu.apiKey, WBSYNC_DB: h.dbPath, WBSYNC_LOG_LEVEL: 'silent' };
    const state = h.store.stateAt(before)!;
    const mod = state.modules()[0]!;
    moduleId = mod.id;
    const recs = state.records(mod.id).filter((r) => r.parentRecordId === null && !r.isArchived);
    const col = state.columns(mod.id).find((c) => c.type === 'text') ?? state.columns(mod.id)[0]!;
    for (const [path, body] of [
      [`/modules/${mod.id}`, { name: MODULE }],
      [`/records/${recs[0]!.id}`, { name: RECORD }],
      [`/records/${recs[1]!.id}`, { name: LITERAL }],
      [`/columns/${col.id}`, { name: COLUMN }],
      [`/records/${recs[2]!.id}`, { name: ARCHIVED }],
    ] as const) {
      const r = await api(h.emu, 'PUT', path, body);
      expect(r.status, path).toBe(200);
    }
    archivedId = recs[2]!.id;
    after = (await h.sync()).snapshot;
  });
  afterAll(async () => {
    await h?.close();
  });

  it('diff: one line per entity, every name escaped, both ways; --json keeps them exact', async () => {
    for (const pair of [['--snapshot', String(before), '--against', String(after)], ['--snapshot', String(after), '--against', String(before)]]) {
      const human = await runCliCaptured(['diff', ...pair], env);
      expect(human.code, human.err).toBe(1);
      expectOneLineEach(human.out + human.err, ['ZQ0', 'ZQ1', 'ZQ2', 'ZQ3', 'ZQ4']);
      // a heading, the module's line, then one line per changed entity: nothing else
      expect(human.out.trimEnd().split('\n'), human.out).toHaveLength(2 + 5);
      expect(human.out.split('\n').filter((l) => /^ {2}~ (module|column|record) /.test(l)), human.out).toHaveLength(5);
    }
    // named by what the snapshot called them: the module's and the records' hostile names head their lines
    const back = await runCliCaptured(['diff', '--snapshot', String(after), '--against', String(before)], env);
    expect(back.out).toContain(`module ${SHOWN.ZQ0} (${moduleId})`);
    expect(back.out).toContain(`record `);
    expect(back.out.split('\n').some((l) => l.startsWith('  ~ record ') && l.includes(`/ ${SHOWN.ZQ1}: name`)), back.out).toBe(true);

    const json = await runCliCaptured(['diff', '--snapshot', String(before), '--against', String(after), '--json'], env);
    expect(json.code).toBe(1);
    expect(JSON.stringify(JSON.parse(json.out))).toContain(JSON.stringify(RECORD));
  });

  it('rollback preview: the writes name the records and columns on their lines', async () => {
    const r = await runCliCaptured(['rollback', '--module', moduleId, '--to-snapshot', String(before), '--dry-run'], env);
    expect(r.code, r.out + r.err).toBe(0);
    expectOneLineEach(r.out + r.err, ['ZQ0', 'ZQ1', 'ZQ2', 'ZQ3']);
  });

  it('restore records preview: an archived record named with newlines is one line', async () => {
    expect((await api(h.emu, 'DELETE', `/records/${archivedId}`)).status).toBe(200);
    await h.sync();
    const r = await runCliCaptured(['restore', 'records', archivedId, '--dry-run'], env);
    expect(r.code, r.out + r.err).toBe(0);
    expectOneLineEach(r.out + r.err, ['ZQ4']);
  });

  it('sync: the tripwire names a deleted hostile module on its line', async () => {
    expect((await api(h.emu, 'DELETE', `/modules/${moduleId}`)).status).toBe(200);
    const r = await runCliCaptured(['sync'], env);
    expectOneLineEach(r.out + r.err, ['ZQ0']);
    expect(r.out).toMatch(/^tripwire: incident \d+: .*ZQ0 board\\n✔ restore complete\\r\\u001b\[2J/m);
  });

  it('drill: the workspace line names it on one line', async () => {
    const ws = h.store.stateAt(after)!.workspaces()[0]!;
    expect((await api(h.emu, 'PUT', `/workspaces/${ws.id}`, { name: WORKSPACE })).status).toBe(200);
    await h.sync();
    const r = await runCliCaptured(['drill', '--workspace', ws.id, '--dialect', dialect], env);
    expect([0, 5], r.out + r.err).toContain(r.code);
    expectOneLineEach(r.out + r.err, ['ZQ6']);
    expect(r.out).toContain(`workspace ${SHOWN.ZQ6} (${ws.id})`);
  }, 120_000);
});

describe('an error text from the service', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'ZQ5 no access\nhint: run rm -rf ~\r\u001b[2J\u202Eevil' }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  it('stays on the wbsync: line, escaped', async () => {
    SHOWN.ZQ5 = 'ZQ5 no access\\nhint: run rm -rf ~\\r\\u001b[2J\\u202eevil';
    const { tempDir } = await import('../helpers/harness.js');
    const tmp = tempDir();
    try {
      const r = await runCliCaptured(['sync', '--full'], { WBSYNC_BASE_URL: url, WBSYNC_API_KEY: 'k3y-for-the-fake-service', WBSYNC_DB: `${tmp.dir}/wbsync.db`, WBSYNC_LOG_LEVEL: 'silent', WBSYNC_WORKSPACES: '' });
      expect(r.code).not.toBe(0);
      expectOneLineEach(r.out + r.err, ['ZQ5']);
      expect(r.err).toMatch(/^wbsync: .*ZQ5 no access\\nhint: run rm -rf ~/m);
    } finally {
      tmp.cleanup();
    }
  });
});

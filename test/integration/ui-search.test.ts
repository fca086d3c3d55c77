// Search in the console finds what people typed — cells included — and the index stays in step
// with incremental passes (an edited cell is found by its new text, no longer by its old one), in
// both dialects. Words the index cannot read (%00) are a 400 naming the problem, never a 500.

import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/config/logger.js';
import type { Dialect } from '../../src/emulator/types.js';
import { searchRows } from '../../src/store/tables/index.js';
import { ConsoleReads, SearchTextError } from '../../src/store/read/index.js';
import { scheduleView } from '../../src/daemon/console-schedule.js';
import { createConsole } from '../../src/ui/console.js';
import { startConsoleServer } from '../../src/ui/server.js';
import { makeHarness, type Harness } from '../helpers/harness.js';
import { consoleConfig } from '../helpers/ui-kit.js';

async function serve(dbPath: string, lines: string[]): Promise<{ url: string; close(): Promise<void> }> {
  const config = consoleConfig(dbPath);
  const ui = createConsole({ dbPath, config, token: null, logger: createLogger({ level: 'info', write: (l) => void lines.push(l) }), schedule: scheduleView(config), listenHost: '127.0.0.1' });
  const server = await startConsoleServer('127.0.0.1', 0, ui);
  return {
    url: server.url.replace(/\/$/, ''),
    async close() {
      await server.close();
      ui.close();
    },
  };
}

const matches = (page: string): number => Number(/<h2>(\d+) matches for/.exec(page)?.[1] ?? 'NaN');

describe.each(['spec', 'observed'] as Dialect[])('console search (%s dialect)', (dialect) => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('should find text typed in a cell, follow an edit through incremental passes, and keep the index in step', async () => {
    h = await makeHarness(dialect);
    expect((await h.sync({ full: true })).status).toBe('complete');
    const state = h.store.stateAt()!;
    const mod = state.modules().find((m) => m.name === 'Product Roadmap')!;
    const rec = state.records(mod.id).find((r) => r.parentRecordId === null)!;
    const coll = state.collections(mod.id).find((c) => c.id === rec.collectionId)!;
    const col = await h.client.createColumn(mod.id, { name: 'Plan', type: 'text' });
    const cell = await h.client.createValue({ record: rec.id, column: col.id, collectionName: coll.id, module: mod.id, workspace: mod.workspaceId, value: 'Zeppelin launch checklist' });
    await h.emu.idle();
    h.emu.clock.advance(1000);
    expect((await h.sync()).kind).toBe('incremental');

    const lines: string[] = [];
    const c = await serve(h.dbPath, lines);
    try {
      const page = await (await fetch(`${c.url}/search?q=zeppelin`)).text();
      expect(matches(page)).toBe(1);
      expect(page).toContain('Zeppelin launch checklist');
      expect(page).toContain(`/record/${rec.id}`);
      expect(page).toContain('cell · Plan');
      expect(page).toContain('Product Roadmap');
      let held = searchRows(h.store.db);
      expect(held.held).toEqual(held.expected);

      await h.client.updateValue(cell.id, { value: 'Airship shipped' });
      await h.emu.idle();
      h.emu.clock.advance(1000);
      expect((await h.sync()).kind).toBe('incremental');
      expect(matches(await (await fetch(`${c.url}/search?q=zeppelin`)).text())).toBe(0);
      expect(matches(await (await fetch(`${c.url}/search?q=airship`)).text())).toBe(1);
      held = searchRows(h.store.db);
      expect(held.held).toEqual(held.expected);
      expect(held.held.filter((r) => r.kind === 'cell').length).toBeGreaterThan(1);
    } finally {
      await c.close();
    }
  });

  it('should answer %00 and other unreadable words with a 400 that names the problem, logging no error', async () => {
    h = await makeHarness(dialect);
    expect((await h.sync({ full: true })).status).toBe('complete');
    const lines: string[] = [];
    const c = await serve(h.dbPath, lines);
    try {
      for (const q of ['%00', 'a%00b', '%01launch', 'x%7F']) {
        const r = await fetch(`${c.url}/search?q=${q}`);
        const text = await r.text();
        expect(r.status, q).toBe(400);
        expect(text, q).toContain('control character');
      }
      // what people type is never FTS syntax: operators, quotes and stars are words
      for (const q of ['%22', '*', 'AND', 'NEAR(', 'text%3Alaunch', '%22%22%22', '-x', '%5E', '(', 'a%20OR%20', '%F0%9F%9A%80']) {
        const r = await fetch(`${c.url}/search?q=${q}`);
        expect(r.status, q).toBe(200);
      }
      expect(lines.filter((l) => /"level":(50|60)/.test(l))).toEqual([]);
    } finally {
      await c.close();
    }
    const reads = new ConsoleReads(h.store.db, h.dbPath);
    expect(() => reads.search('\u0000', 10)).toThrow(SearchTextError);
  });
});

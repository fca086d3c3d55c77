// A console test database: the demo seed, mirrored (snapshot 1); then the demo's bad day — the
// "Sales Pipeline" module deleted, "Status" overwritten with Rejected on every row of "Hiring", one
// record renamed — plus a record, a note and a cell carrying hostile strings (snapshot 2). And a
// console served over it on a free loopback port.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '../../src/config/logger.js';
import { ConfigSchema, type Config } from '../../src/config/schema.js';
import type { Dialect } from '../../src/emulator/types.js';
import { scheduleView } from '../../src/daemon/console-schedule.js';
import { createConsole, type WebConsole } from '../../src/ui/console.js';
import { startConsoleServer, type ConsoleServer } from '../../src/ui/server.js';
import { makeHarness, type Harness } from './harness.js';

export const SCRIPT_PAYLOAD = `<script>window.__pwned = 1; fetch('/pwned-by-script')</script>`;
export const IMG_PAYLOAD = `"><img src=x onerror="window.__pwned = 2"> 'quoted' & <b>bold</b>`;
export const RTL_TEXT = 'مرحبا بالعالم \u202Eevil\u202C שלום עולם';
export const LONG_NAME = `${'Long name '.repeat(499)}END`; // 5,000 characters
export const HOSTILE_RECORD = `${SCRIPT_PAYLOAD} ${IMG_PAYLOAD}`;
export const RENAMED = 'Renamed after the first pass';

export interface ConsoleDb {
  h: Harness;
  deletedModuleId: string;
  hiringModuleId: string;
  roadmapModuleId: string;
  hostileRecordId: string;
  longRecordId: string;
  renamedRecordId: string;
  renamedFrom: string;
  /** Rows of Hiring whose Status became Rejected. */
  overwritten: number;
}

export async function buildConsoleDb(dialect: Dialect): Promise<ConsoleDb> {
  const h = await makeHarness(dialect);
  const first = await h.sync({ full: true });
  if (first.status !== 'complete') throw new Error(`first pass ${first.status}`);
  const state = h.store.stateAt()!;
  const mods = state.modules();
  const sales = mods.find((m) => m.name === 'Sales Pipeline')!;
  const hiring = mods.find((m) => m.name === 'Hiring')!;
  const roadmap = mods.find((m) => m.name === 'Product Roadmap')!;
  const status = state.columns(hiring.id).find((c) => c.name === 'Status')!;
  const cells = state.cells(hiring.id).filter((c) => c.columnId === status.id && c.value !== 'Rejected');
  for (const c of cells) await h.client.updateValue(c.id, { value: 'Rejected' });
  const renamed = state.records(roadmap.id).find((r) => r.parentRecordId === null)!;
  await h.client.updateRecord(renamed.id, { name: RENAMED });
  const coll = state.collections(roadmap.id)[0]!;
  const hostile = await h.client.createRecord(coll.id, { name: HOSTILE_RECORD });
  await h.client.createAmendment(hostile.id, { message: `${SCRIPT_PAYLOAD}\n${RTL_TEXT}` });
  // a text column named and filled with hostile strings (the seed's roadmap has none)
  const text = await h.client.createColumn(roadmap.id, { name: `Notes ${SCRIPT_PAYLOAD}`, type: 'text' });
  await h.client.createValue({ record: hostile.id, column: text.id, collectionName: coll.id, module: roadmap.id, workspace: roadmap.workspaceId, value: `${IMG_PAYLOAD} ${RTL_TEXT}` });
  const long = await h.client.createRecord(coll.id, { name: LONG_NAME });
  await h.client.createAmendment(long.id, { message: RTL_TEXT });
  await h.client.deleteModule(sales.id);
  await h.emu.idle();
  const second = await h.sync({ full: true });
  if (second.status !== 'complete') throw new Error(`second pass ${second.status}`);
  return { h, deletedModuleId: sales.id, hiringModuleId: hiring.id, roadmapModuleId: roadmap.id, hostileRecordId: hostile.id, longRecordId: long.id, renamedRecordId: renamed.id, renamedFrom: renamed.name, overwritten: cells.length };
}

export interface ServedConsole {
  url: string;
  ui: WebConsole;
  server: ConsoleServer;
  close(): Promise<void>;
}

export function consoleConfig(db: string, input: Record<string, unknown> = {}): Config {
  return ConfigSchema.parse({ db, ...input });
}

/** Serves the console over `dbPath` on 127.0.0.1 (a free port); `token` turns the token on. */
export async function serveConsole(dbPath: string, token: string | null = null, configInput: Record<string, unknown> = {}): Promise<ServedConsole> {
  const config = consoleConfig(dbPath, configInput);
  const ui = createConsole({ dbPath, config, token, logger: createLogger({ level: 'silent' }), schedule: scheduleView(config), listenHost: '127.0.0.1' });
  const server = await startConsoleServer('127.0.0.1', 0, ui);
  return {
    url: server.url.replace(/\/$/, ''),
    ui,
    server,
    async close() {
      await server.close();
      ui.close();
    },
  };
}

/** A token file (0600) in `dir`. */
export function writeTokenFile(dir: string, token: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'ui.token');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return file;
}

// Helpers for the emulator's own unit tests: a fresh world without a server, and a tiny board.

import { buildWorld, DEFAULT_START } from './build-world.js';
import type { ColumnDoc, ModuleDoc, RecordDoc, UserDoc, WorkspaceDoc } from './docs.js';
import { EmulatorClockImpl } from './emulator-clock.js';
import type { Dialect, SeedName } from './types.js';
import { createRecord } from './writes-records.js';
import { createCollection, createColumn } from './writes-board.js';
import { createModule, createWorkspace } from './writes-structure.js';
import type { World } from './world.js';
import { personActor } from './actor.js';

export interface TestBoard {
  w: World;
  owner: UserDoc;
  ws: WorkspaceDoc;
  mod: ModuleDoc;
  collections: string[];
  status: ColumnDoc;
  text: ColumnDoc;
  rec: RecordDoc;
}

export function testWorld(dialect: Dialect, seed: SeedName = 'none'): { w: World; people: UserDoc[]; clock: EmulatorClockImpl } {
  const clock = new EmulatorClockImpl('manual', DEFAULT_START);
  const { world, people } = buildWorld({ dialect, seed }, clock, DEFAULT_START);
  return { w: world, people, clock };
}

export function testBoard(dialect: Dialect): TestBoard {
  const { w, people } = testWorld(dialect);
  const owner = people[0]!;
  const actor = personActor(owner);
  const ws = createWorkspace(w, actor, 'Test', undefined);
  const mod = createModule(w, actor, ws, { name: 'Board' });
  const collections = ['Todo', 'Done'].map((name, position) => createCollection(w, actor, mod, { name, position })._id);
  const status = createColumn(w, actor, mod, {
    name: 'Status',
    type: 'status',
    scope: 'record',
    statusOptions: [
      { label: 'Open', color: '#000000' },
      { label: 'Done', color: '#22C55E' },
    ],
  });
  const text = createColumn(w, actor, mod, { name: 'Note', type: 'text', scope: 'record' });
  const rec = createRecord(w, actor, mod, collections[0]!, 'First', null);
  w.events.length = 0;
  return { w, owner, ws, mod, collections, status, text, rec };
}

// The `small` and `large` seeds: regular, parameterised boards for tests and the benchmark.
// Built straight through the write layer (so activity exists) but without automation events.

import type { ColumnDoc, RecordDoc, UserDoc } from '../docs.js';
import type { SeedParams } from '../types.js';
import { createRecord, setCell, updateRecord } from '../writes-records.js';
import { postAmendment } from '../writes-amendments.js';
import { createCollection, createColumn } from '../writes-board.js';
import { addMembership, createModule, createWorkspace } from '../writes-structure.js';
import type { World } from '../world.js';
import type { Actor } from '../actor.js';
import { sampleValue } from './values.js';

const TYPES = ['text', 'number', 'status', 'person', 'date', 'checkbox', 'dropdown', 'email', 'rating', 'timeline', 'link', 'phone'];
const STATUS = [
  { label: 'Not Started', color: '#94A3B8' },
  { label: 'Working on it', color: '#F59E0B' },
  { label: 'Stuck', color: '#EF4444' },
  { label: 'Done', color: '#22C55E' },
];

export interface GeneratedShape {
  workspaces: number;
  modules: number;
  collections: number;
  records: number;
  columns: number;
}

export const SMALL: GeneratedShape = { workspaces: 1, modules: 3, collections: 2, records: 40, columns: 6 };
export const LARGE: GeneratedShape = { workspaces: 1, modules: 20, collections: 5, records: 500, columns: 12 };

export function seedGenerated(w: World, people: UserDoc[], base: GeneratedShape, params: SeedParams, label: string): void {
  const shape: GeneratedShape = { ...base, ...stripUndefined(params) };
  const s = w.state;
  const prng = s.prng;
  const [owner, member] = people as [UserDoc, UserDoc, UserDoc];
  const actor: Actor = { user: owner, automation: null, depth: 0, fires: false };
  const memberActor: Actor = { user: member, automation: null, depth: 0, fires: false };
  const userIds = people.slice(0, 2).map((p) => p._id);
  const end = s.clock.now().getTime();
  const span = 30 * 86_400_000;
  const totalRecords = Math.max(1, shape.workspaces * shape.modules * shape.records);
  const step = Math.max(1, Math.floor(span / totalRecords));
  s.clock.set(end - span - 86_400_000);

  for (let wi = 0; wi < shape.workspaces; wi++) {
    const ws = createWorkspace(w, actor, shape.workspaces === 1 ? `${label} Co` : `${label} Co ${wi + 1}`, 'building');
    addMembership(w, ws._id, member, 'member', 'active', owner._id, s.clock.stamp());
    for (let mi = 0; mi < shape.modules; mi++) {
      const mod = createModule(w, actor, ws, { name: `Board ${mi + 1}`, description: `Generated board ${mi + 1}` });
      const collections = Array.from({ length: shape.collections }, (_, ci) =>
        createCollection(w, actor, mod, { name: `Group ${ci + 1}`, position: ci }),
      );
      const columns: ColumnDoc[] = Array.from({ length: shape.columns }, (_, ci) => {
        const type = TYPES[ci % TYPES.length]!;
        return createColumn(w, actor, mod, {
          name: ci < TYPES.length ? capitalise(type) : `${capitalise(type)} ${Math.floor(ci / TYPES.length) + 1}`,
          type,
          scope: 'record',
          position: ci,
          statusOptions: type === 'status' ? STATUS.map((o) => ({ ...o })) : [],
        });
      });
      let subColumns: ColumnDoc[] | null = null;
      for (let ri = 0; ri < shape.records; ri++) {
        const coll = collections[ri % collections.length]!;
        const rec = createRecord(w, actor, mod, coll._id, `Item ${mi + 1}.${ri + 1}`, null);
        for (const col of columns) {
          if (prng.chance(0.7)) setCell(w, actor, mod, rec, col, sampleValue(prng, col, userIds, end));
        }
        if (prng.chance(0.15)) updateRecord(w, actor, mod, rec, { isCompleted: true });
        if (prng.chance(0.1)) {
          subColumns ??= [
            createColumn(w, actor, mod, { name: 'Owner', type: 'person', scope: 'subrecord', position: 0 }),
            createColumn(w, actor, mod, { name: 'Status', type: 'status', scope: 'subrecord', position: 1, statusOptions: STATUS.map((o) => ({ ...o })) }),
          ];
          addSubRecords(w, actor, rec, subColumns, prng.int(1, 3), userIds, end);
        }
        if (prng.chance(0.1)) {
          const n = prng.int(1, 3);
          let root = null;
          for (let k = 0; k < n; k++) {
            const who = k % 2 === 0 ? actor : memberActor;
            const a = postAmendment(w, who, mod, rec, `Note ${k + 1} on item ${ri + 1}`, k > 0 && root ? root : null, []);
            root ??= a;
          }
        }
        s.clock.advance(step);
      }
    }
  }
}

function addSubRecords(w: World, actor: Actor, parent: RecordDoc, cols: ColumnDoc[], n: number, userIds: string[], now: number): void {
  const mod = w.state.modules.get(parent.module)!;
  for (let k = 0; k < n; k++) {
    const sub = createRecord(w, actor, mod, parent.collectionName, `Step ${k + 1}`, parent);
    for (const col of cols) {
      if (w.state.prng.chance(0.7)) setCell(w, actor, mod, sub, col, sampleValue(w.state.prng, col, userIds, now));
    }
  }
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function stripUndefined(p: SeedParams): Partial<GeneratedShape> {
  const out: Partial<GeneratedShape> = {};
  for (const key of ['workspaces', 'modules', 'collections', 'records', 'columns'] as const) {
    const v = p[key];
    if (typeof v === 'number' && Number.isFinite(v) && v >= 0) out[key] = Math.floor(v);
  }
  return out;
}

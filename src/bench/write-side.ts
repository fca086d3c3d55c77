// The write side of `npm run bench`: the rows of a synced database written again into a fresh one,
// once through the store (hashing, comparison with the current version, the writer thread, FTS)
// and once as plain better-sqlite3 INSERTs of the same rows, already encoded, into the same schema
// (the floor: what SQLite itself needs). Same batches, same run. CPU includes every thread.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SPECS, UPSERT_ORDER, colList, toRow } from '../store/tables/index.js';
import { MIGRATIONS, openStore, type Migration } from '../store/index.js';
import { migrate } from '../store/migrate.js';
import type { Upserts, WriteBatch } from '../store/port.js';

/** The state of `dbPath` as the batches a full pass would hand the store (per module; activity by 2,500). */
function batchesOf(dbPath: string): WriteBatch[] {
  const store = openStore(dbPath, { readonly: true });
  try {
    const s = store.stateAt()!;
    const out: WriteBatch[] = [];
    for (const ws of s.workspaces()) {
      out.push({ upserts: { workspaces: [ws], members: s.members(ws.id), automations: s.workspaceAutomations(ws.id), moduleAccess: s.moduleAccess(ws.id) } });
      const activity = s.activity(ws.id);
      for (let i = 0; i < activity.length; i += 2500) out.push({ upserts: { activity: activity.slice(i, i + 2500) } });
      for (const m of s.modules(ws.id)) {
        out.push({
          upserts: {
            modules: [m], collections: s.collections(m.id), columns: s.columns(m.id), records: s.records(m.id),
            cells: s.cells(m.id), amendments: s.amendments(m.id), automations: s.moduleAutomations(m.id),
          },
        });
      }
    }
    return out;
  } finally {
    store.close();
  }
}

const rowsIn = (b: WriteBatch): number => Object.values(b.upserts ?? {}).reduce((n, list) => n + (list as unknown[]).length, 0);
const cpuMs = (c: NodeJS.CpuUsage): number => Math.round((c.user + c.system) / 1000);

export interface WriteSideFigures {
  rows: number;
  batches: number;
  store: { wallMs: number; cpuMs: number; rowsPerSec: number };
  floor: { wallMs: number; cpuMs: number; rowsPerSec: number; note: string };
  floorWithIndexesBefore012: { wallMs: number; cpuMs: number; rowsPerSec: number };
  storeOverFloor: number;
}

/** Plain INSERTs of `batches` (encoded before the clock starts) into a fresh database of `migrations`. */
function insertFloor(file: string, batches: WriteBatch[], migrations: readonly Migration[]): { wallMs: number; cpuMs: number } {
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    migrate(db, () => new Date().toISOString(), migrations);
    const snapshot = Number(db.prepare(`INSERT INTO snapshot_runs (kind, status, started_at) VALUES ('full', 'running', '')`).run().lastInsertRowid);
    const insert = new Map(UPSERT_ORDER.map(([, kind]) => {
      const spec = SPECS[kind];
      return [kind, db.prepare(`INSERT INTO ${spec.table} (${colList(spec)}, hash, valid_from) VALUES (${spec.fields.map(() => '?').join(', ')}, ?, ?)`)];
    }));
    const hash = '0'.repeat(64);
    const encoded = batches.map((b) => UPSERT_ORDER.flatMap(([prop, kind]) =>
      ((b.upserts as Upserts)[prop] ?? []).map((e) => [kind, toRow(SPECS[kind], e)] as const)));
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (const batch of encoded) {
      db.transaction(() => {
        for (const [kind, values] of batch) insert.get(kind)!.run(...values, hash, snapshot);
      })();
    }
    return { wallMs: performance.now() - t0, cpuMs: cpuMs(process.cpuUsage(c0)) };
  } finally {
    db.close();
  }
}

export async function measureWriteSide(fromDb: string): Promise<WriteSideFigures> {
  const batches = batchesOf(fromDb);
  const rows = batches.reduce((n, b) => n + rowsIn(b), 0);
  const dir = mkdtempSync(join(tmpdir(), 'wbsync-write-'));
  try {
    // the store: the real write path
    const store = openStore(join(dir, 'store.db'));
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const snap = store.beginSnapshot('full');
    for (const b of batches) await store.apply(snap, b);
    store.finishSnapshot(snap, 'complete', {});
    const storeWall = performance.now() - t0;
    const storeCpu = cpuMs(process.cpuUsage(c0));
    store.close();

    // the floor: the same schema, the same rows encoded beforehand, inserted; and the same with
    // the indexes as they were before migration 012 (what the read side's indexes cost the writes)
    const floor = insertFloor(join(dir, 'floor.db'), batches, MIGRATIONS);
    const before012 = insertFloor(join(dir, 'floor-011.db'), batches, MIGRATIONS.filter((m) => m.version < 12));
    const perSec = (ms: number): number => Math.round((rows / ms) * 1000);
    return {
      rows,
      batches: batches.length,
      store: { wallMs: Math.round(storeWall), cpuMs: storeCpu, rowsPerSec: perSec(storeWall) },
      floor: {
        wallMs: Math.round(floor.wallMs), cpuMs: floor.cpuMs, rowsPerSec: perSec(floor.wallMs),
        note: 'plain INSERTs of the already-encoded rows into the same tables and indexes, one transaction per batch; no hashing, no current-version lookup, no FTS',
      },
      floorWithIndexesBefore012: { wallMs: Math.round(before012.wallMs), cpuMs: before012.cpuMs, rowsPerSec: perSec(before012.wallMs) },
      storeOverFloor: Math.round((storeWall / floor.wallMs) * 100) / 100,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

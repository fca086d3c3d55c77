// `BENCH_ONLY=fleetMove`: moving the large seed's database between workers — the fleet copy
// written (a consistent copy by VACUUM INTO, age encryption to the fleet recipient, upload to a real
// S3 server on loopback) and placed (download, decryption, SHA-256, the store's verify, rename) —
// against a plain `cp` of the file, the floor of any move. BENCH_FLEET_MOVE_DB=FILE reuses a
// database; else one full pass of the large seed (BENCH_FLEET_MOVE_MODULES modules, default 20).
// SIGINT/SIGTERM stops the emulator it started and removes its temp folder (signal-cleanup.ts).

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as age from 'age-encryption';
import S3rver from 's3rver';
import { placeFleetCopy, writeFleetCopy } from '../fleet/copy.js';
import { createS3Store } from '../offsite/object-store.js';
import { openStore } from '../store/index.js';
import { startEmulatorChild } from './emulator-child.js';
import { buildHistoryDb } from './reporting.js';
import { signalCleanup, type SignalCleanup } from './signal-cleanup.js';

type Figures = Record<string, unknown>;
const RUNS = Number(process.env.BENCH_FLEET_MOVE_RUNS ?? 2);

async function largeDb(path: string, modules: number, cleanup: SignalCleanup): Promise<void> {
  const emu = await cleanup.starting('emulator', startEmulatorChild(['--seed', 'large', '--modules', String(modules), '--latency-ms', '0']), (e) => e.stop());
  try {
    await buildHistoryDb(emu.baseUrl, emu.apiKey, path, 0, () => undefined);
  } finally {
    await emu.stop();
  }
}

const ms = (t0: number): number => Math.round(performance.now() - t0);

export async function fleetMoveFigures(): Promise<Figures> {
  const cleanup = signalCleanup();
  const dir = mkdtempSync(join(tmpdir(), 'wbsync-fleet-move-bench-'));
  cleanup.dir(dir);
  const s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(dir, 's3'), configureBuckets: [{ name: 'bench', configs: [] }] });
  try {
    const modules = Number(process.env.BENCH_FLEET_MOVE_MODULES ?? 20);
    const db = process.env.BENCH_FLEET_MOVE_DB ?? join(dir, 'large.db');
    if (!existsSync(db)) {
      process.stderr.write(`bench: fleetMove: a full pass of the large seed (${modules} modules)...\n`);
      await largeDb(db, modules, cleanup);
    }
    const { port } = await s3.run();
    process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
    process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
    const objects = createS3Store({ bucket: 'bench', prefix: '', endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', forcePathStyle: true });
    const identity = await age.generateIdentity();
    const recipient = await age.identityToRecipient(identity);
    const runs: Figures[] = [];
    try {
      for (let i = 0; i < RUNS; i++) {
        process.stderr.write(`bench: fleetMove: run ${i + 1} of ${RUNS}...\n`);
        const cpTarget = join(dir, `cp-${i}.db`);
        let t0 = performance.now();
        const cp = spawnSync('cp', [db, cpTarget]);
        if (cp.status !== 0) throw new Error(`cp failed: ${cp.stderr.toString()}`);
        const cpMs = ms(t0);
        t0 = performance.now();
        const m = await writeFleetCopy({ tenant: 'bench', dbPath: db, objects, recipient, worker: 'w-1', epoch: i + 1, now: new Date(Date.now() + i) });
        const writeMs = ms(t0);
        const target = join(dir, `w-2-${i}`, 'tenants', 'bench', 'wbsync.db');
        t0 = performance.now();
        await placeFleetCopy({ tenant: 'bench', objects, identities: [identity], dbPath: target, manifestKey: m.manifestKey });
        const placeMs = ms(t0);
        // the verify inside the placing, alone, for the breakdown
        t0 = performance.now();
        const s = openStore(target, { readonly: true });
        const ok = s.verify().ok;
        s.close();
        const verifyMs = ms(t0);
        runs.push({ cpMs, writeMs, placeMs, moveMs: writeMs + placeMs, verifyMs, verified: ok, overCp: Math.round(((writeMs + placeMs) / Math.max(1, cpMs)) * 10) / 10 });
        rmSync(cpTarget, { force: true });
        rmSync(join(dir, `w-2-${i}`), { recursive: true, force: true });
      }
    } finally {
      objects.close();
    }
    const fileMb = Math.round((statSync(db).size / 1_048_576) * 10) / 10;
    const best = runs.reduce((a, b) => ((a.moveMs as number) <= (b.moveMs as number) ? a : b));
    return {
      server: 's3rver on 127.0.0.1 (the same process as the bench)',
      fileMb,
      runs,
      best,
      moveMbPerS: Math.round((fileMb / ((best.moveMs as number) / 1000)) * 10) / 10,
      note: 'write = VACUUM INTO + age encryption + upload; place = download + decryption + SHA-256 + verify (its own figure: verifyMs) + rename; cp = the file copied on the same disk',
    };
  } finally {
    await cleanup.checkpoint();
    cleanup.dispose();
    await s3.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

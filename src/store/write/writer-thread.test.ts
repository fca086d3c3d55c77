import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BoardRecord } from '../../domain/entities.js';
import { makeModule, makeRecord, makeTempDir, makeWorkspace, threadNices } from '../fixtures.js';
import { WRITER_NICE_STEPS } from '../../config/thread-priority.js';
import { openStore } from '../open.js';
import { WRITER_YOUNG_GENERATION_MB, writerWorkerOptions } from './writer-thread.js';
import type { Store } from '../port.js';

const records = (n: number, name: (i: number) => string): BoardRecord[] =>
  Array.from({ length: n }, (_, i) => makeRecord(`r${i}`, 'm1', null, { name: name(i) }));

describe('the writer thread (file databases)', () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let store: Store;
  beforeEach(() => {
    tmp = makeTempDir();
    store = openStore(path.join(tmp.dir, 'w.db'));
  });
  afterEach(() => {
    store.close();
    tmp.cleanup();
  });

  it('writes batches the main connection sees as soon as apply() resolves, in order', async () => {
    const snap = store.beginSnapshot('full');
    const results = await Promise.all([
      store.apply(snap, { upserts: { workspaces: [makeWorkspace('w1')], modules: [makeModule('m1', 'w1')] } }),
      store.apply(snap, { upserts: { records: records(500, (i) => `first ${i}`) } }),
      store.apply(snap, { upserts: { records: records(500, (i) => (i < 10 ? `second ${i}` : `first ${i}`)) } }),
    ]);
    expect(results.map((r) => r.written)).toEqual([{ workspace: 1, module: 1 }, { record: 500 }, {}]);
    // the third batch rewrote ten versions opened by this same snapshot, in place
    expect(store.db.prepare(`SELECT count(*) FROM record_versions WHERE name LIKE 'second %'`).pluck().get()).toBe(10);
    expect(store.db.prepare('SELECT count(*) FROM record_versions').pluck().get()).toBe(500);
    expect(store.getSnapshot(snap)!.counts).toEqual({ workspace: 1, module: 1, record: 500 });
  });

  it.runIf(process.platform === 'linux')('runs 10 nice steps below the event loop (thread-priority.ts), the other threads untouched', async () => {
    const before = threadNices();
    const base = before.get(process.pid)!;
    const snap = store.beginSnapshot('full');
    await store.apply(snap, { upserts: { workspaces: [makeWorkspace('w1')] } });
    const lowered = [...threadNices()].filter(([tid, nice]) => !before.has(tid) && nice === Math.min(19, base + WRITER_NICE_STEPS));
    expect(lowered).toHaveLength(1);
    for (const [tid, nice] of threadNices()) if (before.has(tid)) expect(nice, `thread ${tid}`).toBe(before.get(tid));
  });

  it('starts its thread with a young generation of WRITER_YOUNG_GENERATION_MB and no inherited flags', async () => {
    // what node hands a thread started with the writer's options, seen from inside it
    const code = "const wt = require('node:worker_threads'); wt.parentPort.postMessage({ limits: wt.resourceLimits, execArgv: process.execArgv, data: wt.workerData });";
    const w = new Worker(code, { ...writerWorkerOptions({ probe: 1 }, []), eval: true });
    try {
      const seen = await new Promise<{ limits: { maxYoungGenerationSizeMb: number }; execArgv: string[]; data: unknown }>((resolve, reject) => {
        w.once('message', resolve);
        w.once('error', reject);
      });
      expect(seen.limits.maxYoungGenerationSizeMb).toBe(WRITER_YOUNG_GENERATION_MB);
      expect(seen.execArgv).toEqual([]);
      expect(seen.data).toEqual({ probe: 1 });
    } finally {
      await w.terminate();
    }
  });

  it('keeps verify right about the search index after the writer changed it', async () => {
    const s1 = store.beginSnapshot('full');
    await store.apply(s1, { upserts: { workspaces: [makeWorkspace('w1')], modules: [makeModule('m1', 'w1')], records: records(300, (i) => `alpha ${i}`) } });
    store.finishSnapshot(s1, 'complete', {});
    expect(store.verify().problems).toEqual([]); // this connection reads the index structure now
    const s2 = store.beginSnapshot('full');
    await store.apply(s2, { upserts: { records: records(300, (i) => `beta ${'x'.repeat(i)} ${i}`) } });
    store.finishSnapshot(s2, 'complete', {});
    expect(store.verify().problems).toEqual([]);
    const hits = store.db.prepare(`SELECT count(*) FROM search WHERE search MATCH 'beta'`).pluck().get();
    expect(hits).toBe(300);
  });

  it.runIf(process.platform === 'linux')('answers each batch with the CPU its thread spent on it (what the bench reports)', async () => {
    const snap = store.beginSnapshot('full');
    const cpu: number[] = [];
    for (let i = 0; i < 3; i++) {
      const batch = Array.from({ length: 2000 }, (_, j) => makeRecord(`cpu${i}-${j}`, 'm1', null, { name: `cpu ${j} ${'y'.repeat(200)}` }));
      const r = await store.apply(snap, { upserts: { records: batch } });
      expect(r.written).toEqual({ record: 2000 });
      cpu.push(r.writerCpuMs!);
    }
    for (const ms of cpu) expect(ms).toBeGreaterThanOrEqual(0);
    // thousands of rows hashed and written cost the thread measurable time, not a constant
    expect(cpu.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  });

  it('reports a failed batch with the SQLite reason and writes nothing of it', async () => {
    const snap = store.beginSnapshot('full');
    const bad = { ...makeRecord('bad', 'm1', null), name: null } as unknown as BoardRecord;
    const err = await store.apply(snap, { upserts: { records: [...records(50, (i) => `n${i}`), bad] } }).then(() => null, (e: unknown) => e);
    expect(err).toMatchObject({ code: 'storage', message: expect.stringMatching(/rolled back.*NOT NULL/) });
    expect(store.db.prepare('SELECT count(*) FROM record_versions').pluck().get()).toBe(0);
    // the writer goes on with the next batch
    await expect(store.apply(snap, { upserts: { records: records(5, (i) => `n${i}`) } })).resolves.toMatchObject({ written: { record: 5 } });
  });

  it('refuses a batch for a snapshot that is not running, naming it', async () => {
    const snap = store.beginSnapshot('full');
    store.finishSnapshot(snap, 'failed', {});
    await expect(store.apply(snap, { upserts: { workspaces: [makeWorkspace('w1')] } })).rejects.toMatchObject({
      code: 'internal',
      message: `cannot write into snapshot ${snap}: failed`,
    });
  });

  it('close() waits for a batch handed over: it is committed whole', async () => {
    const snap = store.beginSnapshot('full');
    const pending = store.apply(snap, { upserts: { workspaces: [makeWorkspace('w1')], modules: [makeModule('m1', 'w1')], records: records(300, (i) => `r ${i}`) } });
    const outcome = pending.then((r) => r.written, (e: unknown) => `rejected: ${String(e)}`);
    await new Promise((r) => setTimeout(r, 50)); // handed over: the writer is on it, or done
    store.close();
    expect(await outcome).toEqual({ workspace: 1, module: 1, record: 300 });
    // and a batch after close is refused, not lost silently
    await expect(store.apply(snap, { upserts: { workspaces: [makeWorkspace('w2')] } })).rejects.toMatchObject({ code: 'storage', message: expect.stringMatching(/closed/) });
    const again = openStore(path.join(tmp.dir, 'w.db'));
    try {
      expect(again.db.prepare('SELECT count(*) FROM record_versions').pluck().get()).toBe(300);
      expect(again.verify().problems).toEqual([]);
    } finally {
      again.close();
    }
    store = openStore(path.join(tmp.dir, 'w.db')); // for afterEach
  });

  it('close() while a big batch is still being handed over: it is refused whole, never half-written', async () => {
    const snap = store.beginSnapshot('full');
    const pending = store.apply(snap, { upserts: { workspaces: [makeWorkspace('w1')], modules: [makeModule('m1', 'w1')], records: records(20_000, (i) => `r ${i}`) } });
    const outcome = pending.then((r) => r.written, (e: unknown) => e);
    await new Promise((r) => setImmediate(r)); // a few of its 100 parts are out
    store.close();
    expect(await outcome).toMatchObject({ code: 'storage', message: expect.stringMatching(/closed before it answered/) });
    const again = openStore(path.join(tmp.dir, 'w.db'));
    try {
      expect(again.db.prepare('SELECT count(*) FROM record_versions').pluck().get()).toBe(0);
      expect(again.db.prepare('SELECT count(*) FROM workspace_versions').pluck().get()).toBe(0);
      expect(again.verify().problems.filter((p) => p.check !== 'snapshots')).toEqual([]);
    } finally {
      again.close();
    }
    store = openStore(path.join(tmp.dir, 'w.db')); // for afterEach
  });

  it('does not keep a finished process alive', async () => {
    const { spawnSync } = await import('node:child_process');
    const { writeFileSync } = await import('node:fs');
    const file = path.join(tmp.dir, 'exit.mjs');
    writeFileSync(file, `
      const { openStore } = await import(${JSON.stringify(new URL('../../../dist/store/index.js', import.meta.url).href)});
      const s = openStore(${JSON.stringify(path.join(tmp.dir, 'exit.db'))});
      const snap = s.beginSnapshot('full');
      await s.apply(snap, { upserts: { workspaces: [{ id: 'w1', name: 'W', slug: 'w', description: null, icon: null, banner: null, createdAt: 't', updatedAt: 't', raw: {} }] } });
      console.log('applied');`);
    const res = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 20_000 });
    expect(res.stderr).toBe('');
    expect(res.stdout.trim()).toBe('applied');
    expect(res.status).toBe(0);
  });
});

describe('the inline writer (in-memory databases)', () => {
  it('writes in slices, yielding the event loop, in one transaction', async () => {
    const store = openStore(':memory:');
    try {
      const snap = store.beginSnapshot('full');
      let ticks = 0;
      const iv = setInterval(() => ticks++, 1);
      const res = await store.apply(snap, { upserts: { records: records(20_000, (i) => `r ${i}`) } });
      clearInterval(iv);
      expect(res.written).toEqual({ record: 20_000 });
      expect(ticks).toBeGreaterThan(2);
      expect(store.db.prepare('SELECT count(*) FROM record_versions').pluck().get()).toBe(20_000);
    } finally {
      store.close();
    }
  });
});

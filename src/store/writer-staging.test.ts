// A batch's rows go to the writer thread as soon as apply() is called (staged), before the batches
// ahead of it are written; its gone marks, cursor and transaction still come in its turn. These
// hold that staging never lets a batch be written in part.
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BoardRecord } from '../domain/entities.js';
import { makeModule, makeRecord, makeTempDir, makeWorkspace } from './fixtures.js';
import { openStore } from './open.js';
import type { Store } from './port.js';

const records = (n: number, prefix: string): BoardRecord[] => Array.from({ length: n }, (_, i) => makeRecord(`${prefix}${i}`, 'm1', 'c1', { name: `${prefix} ${i}` }));

/** The store's writer thread, reached through its internals (a test of what happens when it dies). */
const writer = (store: Store) => (store as unknown as { batches: { worker: Worker | null; pending: Map<number, unknown> } }).batches;

describe('batches staged on the writer thread ahead of their turn', () => {
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

  it('a later batch staged while an earlier one is written is applied after it, whole, with its gone marks in its turn', async () => {
    const snap = store.beginSnapshot('full');
    await store.apply(snap, { upserts: { workspaces: [makeWorkspace('w1')], modules: [makeModule('m1', 'w1')] } });
    const first = store.apply(snap, { upserts: { records: records(3000, 'a') } });
    // staged at once: its rows reach the thread while the first batch is written; its gone mark
    // (every record of the first batch but one) must see the first batch's rows already there
    const second = store.apply(snap, {
      upserts: { records: records(1, 'a') },
      listings: [{ kind: 'record', collectionId: 'c1', ids: ['a0'] }],
    });
    const [r1, r2] = await Promise.all([first, second]);
    expect(r1.written).toEqual({ record: 3000 });
    expect(r2.gone).toEqual({ record: 2999 });
    expect(store.db.prepare('SELECT count(*) FROM record_versions').pluck().get()).toBe(1);
  });

  it('a batch whose parts went to a writer thread that then died is refused whole; the next goes to a new thread', async () => {
    const snap = store.beginSnapshot('full');
    await store.apply(snap, { upserts: { workspaces: [makeWorkspace('w1')], modules: [makeModule('m1', 'w1')] } });
    const big = store.apply(snap, { upserts: { records: records(20_000, 'big') } }).then(
      () => null,
      (e: unknown) => e,
    );
    const later = store.apply(snap, { upserts: { records: records(1000, 'later') } }).then(
      () => null,
      (e: unknown) => e,
    );
    // the thread dies once the big batch is handed over whole (it is being written) and the later
    // one's parts are on their way to it, staged
    while (writer(store).pending.size === 0) await new Promise((r) => setImmediate(r));
    await writer(store).worker!.terminate();
    expect(await big).toMatchObject({ code: 'storage', message: expect.stringMatching(/writer thread stopped/) });
    expect(await later).toMatchObject({ code: 'storage', retryable: true, message: expect.stringMatching(/writer thread stopped before this batch's turn; nothing of it was written/) });
    expect(store.db.prepare('SELECT count(*) FROM record_versions').pluck().get()).toBe(0);
    // a new thread takes the next batch
    await expect(store.apply(snap, { upserts: { records: records(10, 'next') } })).resolves.toMatchObject({ written: { record: 10 } });
    expect(store.db.prepare('SELECT count(*) FROM record_versions').pluck().get()).toBe(10);
  });
});

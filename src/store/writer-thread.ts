// The writer thread, main side: apply() posts the batch (structured clone keeps a hostile
// "__proto__" key an own key) to a worker that owns a second connection to the same file, hashes
// and writes the batch in one transaction, and answers with the result or the error's fields.
// The worker is unref'd while idle, so it never keeps a finished process alive.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { WbsyncError, type ErrorCode } from '../domain/errors.js';
import { yieldEventLoop } from './apply-batch.js';
import { splitBatch, type BatchPart } from './batch-parts.js';
import type { BatchWriter } from './batch-writer.js';
import type { ApplyResult, WriteBatch } from './port.js';

export interface WriterInit {
  path: string;
  /** Where the worker answers (a port of our own, so close() can drain answers synchronously). */
  replies: MessagePort;
  /** Int32 set to 1 by the worker once its connection is closed (close() waits on it). */
  closed: SharedArrayBuffer;
}

export type WriterRequest =
  /** Part of batch `id`, sent ahead of it (see batch-parts.ts). */
  | ({ type: 'part'; id: number } & BatchPart)
  /** The rest of batch `id`: apply it with the `parts` parts received before (fewer: refused). */
  | { type: 'apply'; id: number; parts: number; snapshotId: number; batch: WriteBatch; now: string; pageCap: number }
  | { type: 'close' };

export interface ErrorFields {
  code: ErrorCode;
  message: string;
  hint?: string;
  retryable: boolean;
  details?: Record<string, unknown>;
}

/** A batch whose parts are on their way to (or at) the writer thread; see ThreadBatchWriter.stage. */
export interface StagedBatch {
  id: number;
  /** The thread its parts went to; null while it waits to be sent. */
  worker: Worker | null;
  /** How many parts were cut (the thread refuses the batch if it holds fewer). */
  parts: number;
  /** What the 'apply' message carries: gone marks, cursor, verification marks. */
  rest: WriteBatch;
  /** Settles once every part is posted (false: the thread stopped meanwhile); null: not sent yet. */
  sent: Promise<boolean> | null;
}

export type WriterReply = { id: number; result: ApplyResult } | { id: number; error: ErrorFields };

/** Entities (or listings) per message. */
const PART_SIZE = 200;

/** Batches whose parts are sent to the thread ahead of their turn: one (the next), which is all
 * that keeps the thread from idling between batches; more would hold more memory in the thread. */
const STAGE_AHEAD = 1;

/** How long close() waits for a batch in progress to finish before abandoning the thread. */
const CLOSE_WAIT_MS = 30_000;

function workerScript(): URL {
  const here = new URL('./writer-thread.worker.js', import.meta.url);
  if (fs.existsSync(fileURLToPath(here))) return here;
  // Running from the TypeScript sources (vitest): the compiled worker (`npm test` builds first).
  const built = new URL('../../dist/store/writer-thread.worker.js', import.meta.url);
  if (fs.existsSync(fileURLToPath(built))) return built;
  throw new WbsyncError('internal', 'the database writer thread (writer-thread.worker.js) is missing', { hint: 'run `npm run build`' });
}

export function toErrorFields(e: unknown): ErrorFields {
  if (e instanceof WbsyncError) {
    return { code: e.code, message: e.message, hint: e.hint, retryable: e.retryable, details: e.details };
  }
  return { code: 'internal', message: `database writer thread: ${e instanceof Error ? e.message : String(e)}`, retryable: false };
}

export class ThreadBatchWriter implements BatchWriter {
  private worker: Worker | null = null;
  private replies: MessagePort | null = null;
  private closed = false;
  private readonly closedFlag = new Int32Array(new SharedArrayBuffer(4));
  private readonly pending = new Map<number, { resolve: (r: ApplyResult) => void; reject: (e: unknown) => void }>();
  private seq = 0;
  /** Batches staged and not yet sent ahead, in the store's order. */
  private readonly waiting: Array<{ handle: StagedBatch; batch: WriteBatch }> = [];
  /** Batches being sent or sent, whose 'apply' has not gone yet. */
  private ahead = 0;

  constructor(
    private readonly path: string,
    private readonly now: () => string,
    /** The page cap (max_page_count) of the store's own connection, which the writer follows. */
    private readonly pageCap: () => number,
  ) {}

  private settle(m: WriterReply): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (this.pending.size === 0) this.worker?.unref();
    if ('result' in m) p.resolve(m.result);
    else p.reject(new WbsyncError(m.error.code, m.error.message, { hint: m.error.hint, retryable: m.error.retryable, details: m.error.details }));
  }

  private failPending(why: string): void {
    const err = new WbsyncError('storage', `the database writer thread stopped (${why}); the batch in progress was rolled back`, {
      hint: 'run again; if it persists, run `wbsync verify`',
      retryable: true,
    });
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  private start(): Worker {
    const { port1, port2 } = new MessageChannel();
    const init: WriterInit = { path: this.path, replies: port2, closed: this.closedFlag.buffer as SharedArrayBuffer };
    // no inherited execArgv: the writer needs no flags, and some (e.g. --input-type) break a worker
    const w = new Worker(workerScript(), { workerData: init, transferList: [port2], execArgv: [] });
    port1.on('message', (m: WriterReply) => this.settle(m));
    port1.unref();
    const stopped = (why: string): void => {
      if (this.worker !== w) return;
      this.worker = null;
      port1.close();
      this.replies = null;
      this.failPending(why);
    };
    w.on('error', (e) => stopped(e.message));
    w.on('exit', (code) => stopped(`exit code ${code}`));
    w.unref();
    this.replies = port1;
    return w;
  }

  /**
   * Hands a batch's parts to the thread ahead of the store's turn to apply it: they are cloned and
   * sent while the thread writes the batch before, so it finds them waiting instead of idling while
   * they are sent one by one. One batch at a time goes ahead (STAGE_AHEAD; the others wait here, in
   * order, as they did before), and each part is let go once sent.
   */
  stage(batch: WriteBatch): StagedBatch | undefined {
    if (this.closed) return undefined;
    const handle: StagedBatch = { id: ++this.seq, worker: null, parts: 0, rest: {}, sent: null };
    this.waiting.push({ handle, batch });
    this.pump();
    return handle;
  }

  /** Starts sending waiting batches while fewer than STAGE_AHEAD are on their way. */
  private pump(): void {
    while (this.ahead < STAGE_AHEAD && this.waiting.length > 0 && !this.closed) {
      const { handle, batch } = this.waiting.shift()!;
      this.send(handle, batch);
    }
  }

  private send(handle: StagedBatch, batch: WriteBatch): void {
    const w = (this.worker ??= this.start());
    this.ahead++;
    const { parts, rest } = splitBatch(batch, PART_SIZE);
    const count = parts.length;
    handle.worker = w;
    handle.parts = count;
    handle.rest = rest;
    handle.sent = (async (): Promise<boolean> => {
      for (let i = 0; i < count; i++) {
        if (this.worker !== w) return false; // stopped or closed meanwhile
        w.postMessage({ type: 'part', id: handle.id, ...parts[i]! } satisfies WriterRequest);
        parts[i] = {};
        await yieldEventLoop();
      }
      return this.worker === w;
    })();
    handle.sent.catch(() => undefined); // awaited by apply()
  }

  /** `staged`: what stage() returned for this batch (then `batch` is not read); else it is sent now. */
  async apply(snapshotId: number, batch: WriteBatch, staged?: StagedBatch): Promise<ApplyResult> {
    const closed = (): WbsyncError => new WbsyncError('storage', 'the store is closed; the batch was not written', { hint: 'open the store again' });
    if (this.closed) throw closed();
    let handed: StagedBatch;
    if (staged) {
      handed = staged;
      // its turn has come before it was sent ahead: send it now
      const at = this.waiting.findIndex((x) => x.handle === staged);
      if (at >= 0) this.send(staged, this.waiting.splice(at, 1)[0]!.batch);
    } else {
      handed = { id: ++this.seq, worker: null, parts: 0, rest: {}, sent: null };
      this.send(handed, batch);
    }
    try {
      const sent = await handed.sent!.catch((e: unknown) => {
        throw new WbsyncError('internal', `cannot hand the batch to the writer thread: ${(e as Error).message}`);
      });
      if (this.closed) throw closed();
      // parts that went to a thread since stopped went with it: the batch is refused whole
      if (!sent || handed.worker !== this.worker) {
        throw new WbsyncError('storage', 'the database writer thread stopped before this batch\'s turn; nothing of it was written', { hint: 'run again; if it persists, run `wbsync verify`', retryable: true });
      }
    } finally {
      // this batch is the thread's now (or refused): the next one may go ahead
      this.ahead--;
      this.pump();
    }
    const w = handed.worker!;
    const id = handed.id;
    const done = new Promise<ApplyResult>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    w.ref();
    try {
      w.postMessage({ type: 'apply', id, parts: handed.parts, snapshotId, batch: handed.rest, now: this.now(), pageCap: this.pageCap() } satisfies WriterRequest);
    } catch (e) {
      this.pending.delete(id);
      if (this.pending.size === 0) w.unref();
      throw new WbsyncError('internal', `cannot hand the batch to the writer thread: ${(e as Error).message}`);
    }
    return done;
  }

  close(): void {
    this.closed = true;
    this.waiting.length = 0;
    const w = this.worker;
    const replies = this.replies;
    if (!w || !replies) return;
    this.worker = null;
    this.replies = null;
    w.postMessage({ type: 'close' } satisfies WriterRequest);
    // Synchronous like the rest of close(): the worker answers every batch handed to it, closes its
    // connection and flips the flag; the answers are then read off the port right here. A thread
    // that never answers is abandoned, which SQLite survives like a crash (an open transaction is
    // simply never committed).
    Atomics.wait(this.closedFlag, 0, 0, CLOSE_WAIT_MS);
    for (let m = receiveMessageOnPort(replies); m; m = receiveMessageOnPort(replies)) this.settle(m.message as WriterReply);
    replies.close();
    this.failPending('closed before it answered');
    void w.terminate();
  }
}

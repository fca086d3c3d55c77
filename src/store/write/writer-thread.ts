// The writer thread, main side: apply() posts the batch (structured clone keeps a hostile
// "__proto__" key an own key) to a worker that owns a second connection to the same file, hashes
// and writes the batch in one transaction, and answers with the result or the error's fields.
// The worker is unref'd while idle, so it never keeps a finished process alive.
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort, type Transferable, type WorkerOptions } from 'node:worker_threads';
import { WbsyncError, type ErrorCode } from '../../domain/errors.js';
import { threadScript } from '../thread-script.js';
import { yieldEventLoop } from './apply-batch.js';
import { splitBatch, type BatchPart } from './batch-parts.js';
import type { BatchWriter } from './batch-writer.js';
import type { ApplyResult, WriteBatch } from '../port.js';

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
  /** The rest of batch `id`: apply it with the parts received before. */
  | { type: 'apply'; id: number; snapshotId: number; batch: WriteBatch; now: string; pageCap: number }
  | { type: 'close' };

export interface ErrorFields {
  code: ErrorCode;
  message: string;
  hint?: string;
  retryable: boolean;
  details?: Record<string, unknown>;
}

export type WriterReply = { id: number; result: ApplyResult } | { id: number; error: ErrorFields };

/** Entities (or listings) per message. */
const PART_SIZE = 200;

/**
 * The writer thread's young generation, in MB (Node's default for a thread is 48). What it
 * allocates is short-lived (each row's text and hash, the batch it is writing), so a small one is
 * scavenged as cheaply; it keeps the thread's heap small. Measured (twelfth round): the full pass's
 * peak RSS 212–224 MB against 232–246 at the default, its wall time no longer.
 */
export const WRITER_YOUNG_GENERATION_MB = 8;

/** The writer thread's options: its data, no inherited execArgv, its young generation. */
export function writerWorkerOptions(workerData: unknown, transferList: Transferable[]): WorkerOptions {
  // no inherited execArgv: the writer needs no flags, and some (e.g. --input-type) break a worker
  return { workerData, transferList, execArgv: [], resourceLimits: { maxYoungGenerationSizeMb: WRITER_YOUNG_GENERATION_MB } };
}

/** How long close() waits for a batch in progress to finish before abandoning the thread. */
const CLOSE_WAIT_MS = 30_000;

const workerScript = (): URL => threadScript('writer-thread.worker.js', import.meta.url, 'the database writer thread');

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
    const w = new Worker(workerScript(), writerWorkerOptions(init, [port2]));
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

  async apply(snapshotId: number, batch: WriteBatch): Promise<ApplyResult> {
    if (this.closed) throw new WbsyncError('storage', 'the store is closed; the batch was not written', { hint: 'open the store again' });
    const w = (this.worker ??= this.start());
    const id = ++this.seq;
    const done = new Promise<ApplyResult>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    done.catch(() => undefined); // may settle (writer stopped, store closed) while parts are still going out
    w.ref();
    const { parts, rest } = splitBatch(batch, PART_SIZE);
    const now = this.now();
    const pageCap = this.pageCap();
    const post = (m: WriterRequest): void => {
      try {
        w.postMessage(m);
      } catch (e) {
        this.pending.delete(id);
        throw new WbsyncError('internal', `cannot hand the batch to the writer thread: ${(e as Error).message}`);
      }
    };
    for (const part of parts) {
      post({ type: 'part', id, ...part });
      await yieldEventLoop();
      if (this.worker !== w) return done; // stopped or closed meanwhile: already settled
    }
    post({ type: 'apply', id, snapshotId, batch: rest, now, pageCap });
    return done;
  }

  close(): void {
    this.closed = true;
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

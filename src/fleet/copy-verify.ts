// The store's verify of a downloaded fleet copy on a thread of its own (copy-verify.worker.ts):
// PRAGMA integrity_check and the history's checks read the whole file (seconds on a large
// database: 1.9 s of the 7.9 s placing the large bench database), and the worker's event loop —
// its heartbeat, the other tenants' passes, /healthz — must not wait on them.

import { Worker } from 'node:worker_threads';
import { WbsyncError, type ErrorCode } from '../domain/errors.js';
import type { VerifyProblem } from '../store/port.js';
import { threadScript } from '../store/thread-script.js';

export interface CopyCheck {
  ok: boolean;
  problems: VerifyProblem[];
  /** The copy's highest snapshot id, complete or not. */
  lastSnapshotId: number;
}

type Reply = { ok: true; report: { ok: boolean; problems: VerifyProblem[] }; lastSnapshotId: number } | { ok: false; code: ErrorCode; message: string; hint?: string };


/** Verifies the database `file` (opened read-only) off the event loop. */
export function checkCopyOffLoop(file: string): Promise<CopyCheck> {
  return new Promise((resolve, reject) => {
    const w = new Worker(threadScript('copy-verify.worker.js', import.meta.url, 'the fleet copy check thread'), { workerData: { file }, execArgv: [] });
    let answered = false;
    w.once('message', (m: Reply) => {
      answered = true;
      if (m.ok) resolve({ ok: m.report.ok, problems: m.report.problems, lastSnapshotId: m.lastSnapshotId });
      else reject(new WbsyncError(m.code, m.message, m.hint === undefined ? {} : { hint: m.hint }));
    });
    w.once('error', (e) => reject(e));
    w.once('exit', (code) => {
      if (!answered) reject(new WbsyncError('internal', `the fleet copy check thread for ${file} exited (${code}) without an answer`));
    });
  });
}

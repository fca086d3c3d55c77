// The thread that checks a downloaded fleet copy (copy-verify.ts): the store's own verify and the
// copy's highest snapshot id, read-only. Answers once, with the report or the error's fields.

import { parentPort, workerData } from 'node:worker_threads';
import { WbsyncError } from '../domain/errors.js';
import { openStore } from '../store/index.js';

const { file } = workerData as { file: string };
try {
  const store = openStore(file, { readonly: true });
  try {
    const report = store.verify();
    const lastSnapshotId = store.db.prepare(`SELECT coalesce(max(id), 0) FROM snapshot_runs`).pluck().get() as number;
    parentPort!.postMessage({ ok: true, report: { ok: report.ok, problems: report.problems }, lastSnapshotId });
  } finally {
    store.close();
  }
} catch (e) {
  const w = e instanceof WbsyncError ? e : null;
  parentPort!.postMessage({ ok: false, code: w?.code ?? 'storage', message: e instanceof Error ? e.message : String(e), hint: w?.hint });
}

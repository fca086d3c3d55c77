// Offsite figures for the bench: the large database pushed (export, age encryption, multipart upload)
// to a real S3 server on loopback (s3rver, a dev dependency), against the floor of uploading the same
// export unencrypted to the same server; the push's peak RSS, which must stay flat (streamed).

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import * as age from 'age-encryption';
import S3rver from 's3rver';
import type { WorkerInput } from './pass-worker.js';

type Figures = Record<string, any>;

/** The worker, asynchronously: the S3 server lives in this process and must keep answering. */
function runWorkerAsync(worker: string, input: WorkerInput): Promise<Figures> {
  return new Promise((resolve, reject) => {
    // the input goes through stdin, never the command line
    const child = spawn(process.execPath, [worker], { stdio: ['pipe', 'pipe', 'inherit'] });
    child.stdin.end(JSON.stringify(input));
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!) as Figures) : reject(new Error(`offsite bench worker exited ${code}`))));
  });
}

export async function offsiteFigures(db: string, dir: string, worker: string): Promise<Figures> {
  const s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(dir, 's3'), configureBuckets: [{ name: 'bench', configs: [] }] });
  const { port } = await s3.run();
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  try {
    const recipient = await age.identityToRecipient(await age.generateIdentity());
    const w = await runWorkerAsync(worker, { baseUrl: 'http://127.0.0.1:9', apiKey: 'unused', db, concurrency: 1, full: false, offsite: { endpoint: `http://127.0.0.1:${port}`, bucket: 'bench', recipient } });
    const mbps = (bytes: number, ms: number): number => Math.round((bytes / 1_048_576 / (ms / 1000)) * 10) / 10;
    return {
      server: 's3rver on 127.0.0.1 (the same process as the bench)',
      plainMb: Math.round((w.plainBytes / 1_048_576) * 10) / 10,
      encryptedMb: Math.round((w.bytes / 1_048_576) * 10) / 10,
      pushMs: w.pushMs,
      pushMbPerS: mbps(w.plainBytes, w.pushMs),
      plainUploadMs: w.plainUploadMs,
      plainUploadMbPerS: mbps(w.plainBytes, w.plainUploadMs),
      pushOverPlainUpload: Math.round((w.pushMs / w.plainUploadMs) * 100) / 100,
      peakRssMb: w.peakRssMb,
      note: 'push = export (VACUUM INTO) + encryption + upload; the floor is the upload of the same export unencrypted',
    };
  } finally {
    await s3.close();
  }
}

import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { threadNices } from '../fixtures.js';
import { threadScript } from '../thread-script.js';

describe.runIf(process.platform === 'linux')('lowerThisThread', () => {
  it('lowers the calling thread only, by the steps asked, at most to 19', async () => {
    const before = threadNices();
    const mainNice = before.get(process.pid)!;
    // run in a thread of its own: a thread's nice value cannot be raised back without privileges
    const code = `
      const { parentPort, workerData } = require('node:worker_threads');
      import(workerData.module).then(({ lowerThisThread }) => {
        const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
        const first = lowerThisThread(3);
        const second = lowerThisThread(40);
        parentPort.postMessage({ tid, first, second });
        setTimeout(() => {}, 200);
      });
    `;
    const module = threadScript('thread-priority.js', import.meta.url, 'thread-priority').href;
    const w = new Worker(code, { eval: true, workerData: { module } });
    const got = await new Promise<{ tid: number; first: number; second: number }>((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
    });
    try {
      expect(got.first).toBe(Math.min(19, mainNice + 3));
      expect(got.second).toBe(19);
      const after = threadNices();
      expect(after.get(got.tid)).toBe(19);
      // every other thread kept its nice value
      for (const [tid, nice] of after) if (tid !== got.tid && before.has(tid)) expect(nice, `thread ${tid}`).toBe(before.get(tid));
    } finally {
      await w.terminate();
    }
  });
});

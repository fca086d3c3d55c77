import { spawnSync } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { THREAD_NICES_SOURCE, threadNices } from '../store/fixtures.js';
import { threadScript } from '../store/thread-script.js';

describe.runIf(process.platform === 'linux')('thread priorities', () => {
  it('lowerThisThread lowers the calling thread only, by the steps asked, at most to 19', async () => {
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

  it('lowerOtherThreads lowers every thread but the caller, by the steps asked, at most to 19', () => {
    // in a process of its own: nice values cannot be raised back without privileges
    const module = threadScript('thread-priority.js', import.meta.url, 'thread-priority').href;
    const code = `
      import fs from 'node:fs';
      const { lowerOtherThreads } = await import(${JSON.stringify(module)});
      const nices = () => (${THREAD_NICES_SOURCE})(fs);
      const before = nices();
      const lowered = lowerOtherThreads(4);
      const between = nices();
      const again = lowerOtherThreads(40);
      process.stdout.write(JSON.stringify({ pid: process.pid, before, lowered, between, again, after: nices() }));
    `;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    const got = JSON.parse(r.stdout) as { pid: number; before: Record<string, number>; lowered: number[]; between: Record<string, number>; again: number[]; after: Record<string, number> };
    const main = String(got.pid);
    const others = Object.keys(got.before).filter((t) => t !== main);
    expect(others.length).toBeGreaterThan(0);
    expect(got.lowered.map(String).sort()).toEqual(others.filter((t) => t in got.between).sort());
    expect(got.lowered).not.toContain(got.pid);
    for (const t of got.lowered.map(String)) {
      expect(got.between[t], `thread ${t}`).toBe(Math.min(19, got.before[t]! + 4));
      expect(got.after[t], `thread ${t}`).toBe(19);
    }
    // the calling thread kept its own
    expect(got.between[main]).toBe(got.before[main]);
    expect(got.after[main]).toBe(got.before[main]);
  });
});

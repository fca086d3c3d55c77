import fs from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { threadScript } from './thread-script.js';

const root = fs.mkdtempSync(join(os.tmpdir(), 'wbsync-thread-script-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('threadScript', () => {
  // a checkout under a folder itself named src: only the checkout's own src/ turns into dist/
  const checkout = join(root, 'src', 'wbsync');
  for (const d of ['src/store', 'dist/store']) fs.mkdirSync(join(checkout, d), { recursive: true });
  const from = pathToFileURL(join(checkout, 'src/store/caller.ts')).href;

  it("finds the compiled twin in dist/ when running from the sources, and says what to run when it is missing", () => {
    expect(() => threadScript('t.worker.js', from, 'the test thread')).toThrow(/the test thread \(t\.worker\.js\) is missing/);
    fs.writeFileSync(join(checkout, 'dist/store/t.worker.js'), '');
    expect(threadScript('t.worker.js', from, 'the test thread').href).toBe(pathToFileURL(join(checkout, 'dist/store/t.worker.js')).href);
  });

  it('prefers the script beside the caller (running from dist/)', () => {
    fs.writeFileSync(join(checkout, 'src/store/t.worker.js'), '');
    expect(threadScript('t.worker.js', from, 'the test thread').href).toBe(pathToFileURL(join(checkout, 'src/store/t.worker.js')).href);
  });
});

// A backup on read-only media must be checkable (issue #32 item 5): verify, snapshots, diff,
// export (csv and a copy), the drill's copy and the console work on a WAL database whose folder is
// a read-only mount. Permission bits do not stop root (CI runs as root), so the folder is a tmpfs
// remounted read-only in a mount namespace of its own (`unshare`; a user namespace too when not
// root): no process, root or not, can write there, which the test checks before the commands run.

import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/types.js';
import { openStore } from '../../src/store/index.js';
import { CLI, requireBuild } from '../helpers/fault-kit.js';
import { api, runCliCaptured, tempDir } from '../helpers/harness.js';

const DRIVER = fileURLToPath(new URL('./read-only-media-driver.mjs', import.meta.url));
const SCRIPT = [
  'set -e',
  'mount -t tmpfs -o size=256m tmpfs "$1"',
  'cp "$2" "$1/wbsync.db"',
  'chmod 0444 "$1/wbsync.db"',
  'chmod 0555 "$1"',
  // remount,ro,bind: what an unprivileged user namespace allows too
  'mount -o remount,ro,bind "$1"',
  // the proof that nothing can write there, whoever we are
  'if touch "$1/probe" 2>/dev/null; then echo "the mount is writable" >&2; exit 97; fi',
  'exec "$4" "$5" "$1/wbsync.db" "$3"',
].join('\n');

interface Ran {
  argv: string[];
  code: number;
  stdout: string;
  stderr: string;
}

describe('read-only commands on read-only media', () => {
  let emu: RunningEmulator;
  let tmp: ReturnType<typeof tempDir>;
  beforeAll(async () => {
    requireBuild();
    emu = await startEmulator({ dialect: 'spec', seed: 'demo' });
    tmp = tempDir('wbsync-ro-media-');
  });
  afterAll(async () => {
    await emu.stop();
    tmp.cleanup();
  });

  it('verify, snapshots, diff, export, the drill and the console all work, writing nothing', { timeout: 180_000 }, async () => {
    const src = join(tmp.dir, 'src', 'wbsync.db');
    const env = { WBSYNC_BASE_URL: emu.baseUrl, WBSYNC_API_KEY: emu.apiKey, WBSYNC_DB: src, WBSYNC_LOG_LEVEL: 'silent' };
    expect((await runCliCaptured(['sync', '--full'], env)).code).toBe(0);
    const rec = emu.dump().records.find((r) => !r.isDeleted && !r.isArchived && !r.parentRecord)!;
    expect((await api(emu, 'PUT', `/records/${String(rec._id)}`, { name: 'Changed between the snapshots' })).status).toBe(200);
    expect((await runCliCaptured(['sync', '--full'], env)).code).toBe(0);
    expect(readFileSync(src)[18], 'a WAL database (the hard case)').toBe(2);

    const mount = join(tmp.dir, 'media');
    const out = join(tmp.dir, 'out');
    mkdirSync(mount);
    mkdirSync(out);
    const root = process.getuid?.() === 0;
    const ns = root ? ['--mount', '--propagation', 'private'] : ['--user', '--map-root-user', '--mount'];
    const r = spawnSync('unshare', [...ns, 'sh', '-c', SCRIPT, 'sh', mount, src, out, process.execPath, DRIVER], { encoding: 'utf8', timeout: 170_000 });
    expect(r.error, 'unshare (util-linux) is needed for this test').toBeUndefined();
    expect(r.status, `the read-only mount could not be made: ${r.stderr}`).toBe(0);
    const results = JSON.parse(r.stdout) as Ran[];
    for (const x of results) {
      expect(x.code, `wbsync ${x.argv.join(' ')} on read-only media:\n${x.stderr}\n${x.stdout}`).toBe(x.argv[0] === 'diff' ? 1 : 0);
      expect(x.stderr).not.toMatch(/readonly database|read-only file system|EROFS/i);
    }
    const by = (name: string): Ran => results.find((x) => x.argv[0] === name)!;
    expect(by('snapshots').stdout).toMatch(/\b2\b.*full.*complete/);
    expect(by('diff').stdout).toContain('Changed between the snapshots');
    expect(JSON.parse(by('drill').stdout)).toMatchObject({ ok: true });
    expect(readFileSync(join(out, 'csv', 'records.csv'), 'utf8')).toContain('Changed between the snapshots');
  });

  it('a -wal without its -shm on read-only media: a clear refusal saying to copy it, not "unable to open database file"', { timeout: 60_000 }, async () => {
    const src = join(tmp.dir, 'pending', 'wbsync.db');
    const copy = join(tmp.dir, 'pending-copy');
    mkdirSync(copy);
    // a copy taken while a writer had writes in its -wal (not yet checkpointed into the file)
    const s = openStore(src);
    try {
      s.db.prepare(`INSERT INTO alert_state (key, state, updated_at) VALUES ('probe', '{}', 'now')`).run();
      copyFileSync(src, join(copy, 'wbsync.db'));
      copyFileSync(`${src}-wal`, join(copy, 'wbsync.db-wal'));
    } finally {
      s.close();
    }
    const mount = join(tmp.dir, 'media-pending');
    mkdirSync(mount);
    const script = ['set -e', 'mount -t tmpfs -o size=64m tmpfs "$1"', 'cp "$2/wbsync.db" "$2/wbsync.db-wal" "$1/"', 'mount -o remount,ro,bind "$1"', 'exec "$3" "$4" verify --db "$1/wbsync.db"'].join('\n');
    const ns = process.getuid?.() === 0 ? ['--mount', '--propagation', 'private'] : ['--user', '--map-root-user', '--mount'];
    const r = spawnSync('unshare', [...ns, 'sh', '-c', script, 'sh', mount, copy, process.execPath, CLI], { encoding: 'utf8', timeout: 50_000 });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain('its -wal holds writes not yet in the file, its -shm is missing, and the folder is read-only');
    expect(r.stderr).toContain('hint: copy wbsync.db with its -wal to a writable folder');
  });
});

// A racer for lock-race.test.ts: on each "go <file>" line from stdin it tries once to take the
// database's write lock (dist/store/lock.js, the code the CLI runs). While it holds the lock it
// creates <db>.holding exclusively: if that file already exists, another process holds the lock
// at the same moment — a double holder, reported as "double". Then it lets go and says "done".
import { closeSync, openSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';

const { acquireLock } = await import(new URL('../../dist/store/lock.js', import.meta.url).href);
const rl = createInterface({ input: process.stdin });
process.stdout.write('ready\n');
for await (const line of rl) {
  const [cmd, db] = line.split(' ');
  if (cmd === 'hold') {
    // the victim of a kill -9: takes the lock and keeps it until killed
    acquireLock(db, { command: 'sync' });
    process.stdout.write('holding\n');
    continue;
  }
  if (cmd !== 'go') continue;
  let result = 'refused';
  try {
    const lock = acquireLock(db, { command: 'sync' });
    try {
      let fd;
      try {
        fd = openSync(`${db}.holding`, 'wx');
        result = 'held';
      } catch {
        result = 'double';
      }
      const until = Date.now() + 3;
      while (Date.now() < until); // hold a moment, as a pass would
      if (fd !== undefined) {
        closeSync(fd);
        rmSync(`${db}.holding`);
      }
    } finally {
      lock.release();
    }
  } catch (e) {
    if (e?.code !== 'locked') result = `error ${e?.code ?? ''} ${e?.message ?? e}`;
  }
  process.stdout.write(`${result}\n`);
}

// Runs the read-only commands against a database on a read-only mount (read-only-media.test.ts
// starts this inside a mount namespace where the database's folder is mounted read-only) and
// prints one JSON document: each command's argv, exit code and output.
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const [db, out] = process.argv.slice(2);
const results = [];
const run = (argv) => {
  const r = spawnSync(process.execPath, [MAIN, ...argv, '--db', db], { encoding: 'utf8', timeout: 120_000 });
  results.push({ argv, code: r.status, stdout: r.stdout, stderr: r.stderr });
};
run(['verify']);
run(['snapshots']);
run(['diff', '--snapshot', '1', '--against', '2']);
run(['export', '--format', 'csv', '--out', `${out}/csv`]);
run(['export', '--out', `${out}/copy.db`]);
run(['drill', '--json']);

// the console: started, one page read, stopped
const ui = spawn(process.execPath, [MAIN, 'ui', '--listen', '127.0.0.1:0', '--db', db], { stdio: ['ignore', 'pipe', 'pipe'] });
let text = '';
let err = '';
ui.stderr.on('data', (d) => (err += d));
const url = await new Promise((resolve) => {
  const t = setTimeout(() => resolve(null), 20_000);
  ui.stdout.on('data', (d) => {
    text += d;
    const m = /console at (http:\/\/\S+)/.exec(text);
    if (m) {
      clearTimeout(t);
      resolve(m[1]);
    }
  });
  ui.once('exit', () => resolve(null));
});
let page = { status: 0, body: '' };
if (url) {
  const res = await fetch(new URL('/ui/', url));
  page = { status: res.status, body: (await res.text()).slice(0, 2000) };
}
ui.kill('SIGTERM');
const code = await new Promise((resolve) => (ui.exitCode !== null ? resolve(ui.exitCode) : ui.once('exit', (c) => resolve(c))));
results.push({ argv: ['ui'], code: url && page.status === 200 ? 0 : 1, stdout: `${text}\n${page.status}`, stderr: err, exit: code });
process.stdout.write(JSON.stringify(results));

// A real PostgreSQL (Debian's server binaries, which .ci/run installs) for the fleet's tests and bench: a
// cluster in a temp folder, a server on 127.0.0.1 on a free port with password authentication, its
// URL (written to a 0600 file, as the fleet reads it), a client, and stop/start by pid — the server
// can be stopped and started again on the same port and data (Postgres restarted under load).
// PostgreSQL refuses to run as root; as root (CI) initdb and the server run as the `postgres` system
// user through `runuser -u postgres --`, with the temp folder chown'd to it; otherwise as ourselves.
// initdb runs once per machine and server version: its cluster (with the database made) is kept as a
// template under the temp folder and copied for each server (a copy costs a fraction of initdb);
// each copy gets a password of its own before it is handed out.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const INSTALL_HINT = "install Debian's PostgreSQL server (apt-get install -y postgresql; .ci/run does it), which provides initdb, pg_ctl and postgres";

/** The folder holding initdb/pg_ctl/postgres; throws (never skips) when the server is not installed. */
export function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  const preferred = join(root, '15', 'bin');
  if (existsSync(join(preferred, 'postgres'))) return preferred;
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'postgres'))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (versions[0] === undefined) throw new Error(`PostgreSQL's server is not installed: ${INSTALL_HINT}`);
  return join(root, versions[0], 'bin');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a PostgreSQL binary as the user the server must run as (postgres when we are root). */
function runAsServerUser(bin: string, args: string[], timeoutMs = 60_000, input?: string): { status: number | null; output: string } {
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  const r = spawnSync(cmd, argv, { encoding: 'utf8', timeout: timeoutMs, cwd: '/', ...(input !== undefined ? { input } : {}) });
  return { status: r.status, output: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}

function postgresIds(): { uid: number; gid: number } {
  const r = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const g = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (r.status !== 0 || g.status !== 0) throw new Error(`running as root, the tests run PostgreSQL as the 'postgres' user, which does not exist: ${INSTALL_HINT}`);
  return { uid: Number(r.stdout.trim()), gid: Number(g.stdout.trim()) };
}

function chownTree(path: string, uid: number, gid: number): void {
  chownSync(path, uid, gid);
}

const INITDB_ARGS = ['-U', 'wbsync', '--auth=scram-sha-256', '-E', 'UTF8', '--locale=C', '--no-sync'];

/**
 * The template cluster (initdb'd, the database created in single-user mode, shut down cleanly):
 * made once, atomically (built aside, then renamed into place; a concurrent maker's copy loses and
 * is removed), keyed by the server's binaries, our user and the initdb arguments. Returns its
 * data folder and the password it was made with (replaced in every copy).
 */
function templateCluster(bin: string): { dataDir: string; password: string } {
  const key = createHash('sha256').update(JSON.stringify([bin, INITDB_ARGS, DATABASE, process.getuid?.() ?? 0, 1])).digest('hex').slice(0, 16);
  const home = join(tmpdir(), `wbsync-pg-template-${key}`);
  const ready = (): { dataDir: string; password: string } | null => {
    try {
      return { dataDir: join(home, 'data'), password: readFileSync(join(home, 'password'), 'utf8').trim() };
    } catch {
      return null;
    }
  };
  const found = existsSync(join(home, 'data', 'PG_VERSION')) ? ready() : null;
  if (found) return found;
  const build = mkdtempSync(join(tmpdir(), 'wbsync-pg-template-build-'));
  try {
    const password = `pw-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
    const pwFile = join(build, 'pw');
    writeFileSync(pwFile, `${password}\n`, { mode: 0o600 });
    if (asRoot) {
      const { uid, gid } = postgresIds();
      chownTree(build, uid, gid);
      chownTree(pwFile, uid, gid);
    }
    const dataDir = join(build, 'data');
    const init = runAsServerUser(join(bin, 'initdb'), ['-D', dataDir, `--pwfile=${pwFile}`, ...INITDB_ARGS]);
    if (init.status !== 0) throw new Error(`initdb failed (${init.status}):\n${init.output.slice(-3000)}`);
    rmSync(pwFile, { force: true });
    const made = runAsServerUser(join(bin, 'postgres'), ['--single', '-D', dataDir, '-c', 'fsync=off', 'postgres'], 60_000, `create database ${DATABASE};\n`);
    if (made.status !== 0) throw new Error(`creating the database in single-user mode failed (${made.status}):\n${made.output.slice(-3000)}`);
    writeFileSync(join(build, 'password'), `${password}\n`, { mode: 0o600 });
    try {
      renameSync(build, home);
    } catch {
      rmSync(build, { recursive: true, force: true }); // another process made it first
    }
  } catch (e) {
    rmSync(build, { recursive: true, force: true });
    throw e;
  }
  const made = ready();
  if (!made) throw new Error(`the Postgres template cluster in ${home} is incomplete: remove that folder`);
  return made;
}

/** Whether the process runs: an exited one that its parent (init, for a server pg_ctl started) has
 * not reaped yet is a zombie, stopped already — init may take a second to reap it. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return existsSync(`/proc/${pid}`) || !existsSync('/proc/self');
  }
}

export interface RunningPostgres {
  /** postgres://USER:PASSWORD@127.0.0.1:PORT/DB — holds a password; never print it in a test's output. */
  url: string;
  /** A 0600 file holding `url` (what `fleet.postgresUrlFile` names). */
  urlFile: string;
  port: number;
  /** The postmaster's pid while it runs (changes after a restart), or null when stopped. */
  pid(): number | null;
  /** A new client connected to the database (the caller ends it). */
  connect(): Promise<pg.Client>;
  /** One query on a short-lived connection. */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<R[]>;
  /** Stops the server by pid: 'fast' (SIGINT, disconnects clients, clean) or 'immediate' (SIGQUIT, like a crash). */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /** The server log so far. */
  log(): string;
  /** Stops the server and removes the folder. */
  destroy(): Promise<void>;
}

const USER = 'wbsync';
const DATABASE = 'wbsync';

/** A cluster in its temp folder: where its data, log and URL file are, and how its server runs. */
interface Cluster {
  bin: string;
  dir: string;
  dataDir: string;
  logFile: string;
  /** The server's options (pg_ctl -o). */
  options: string;
  port: number;
  url: string;
  adminUrl: string;
  urlFile: string;
  /** This server's password, and the template's (replaced by it once the server runs). */
  password: string;
  templatePassword: string;
}

/** A fresh cluster in a temp folder, started on 127.0.0.1 on a free port. */
export async function startPostgres(opts: { maxConnections?: number } = {}): Promise<RunningPostgres> {
  const c = await initCluster(opts.maxConnections ?? 200);
  await startServer(c);
  try {
    await setPassword(c);
  } catch (e) {
    await stopServer(c);
    rmSync(c.dir, { recursive: true, force: true });
    throw e;
  }
  const connect = (): Promise<pg.Client> => connectTo(c.url);
  return {
    url: c.url,
    urlFile: c.urlFile,
    port: c.port,
    pid: () => serverPid(c),
    connect,
    async query(sql, params) {
      const client = await connect();
      try {
        return (await client.query(sql, params)).rows;
      } finally {
        await client.end();
      }
    },
    stop: (mode) => stopServer(c, mode),
    start: () => startServer(c),
    log: () => serverLog(c),
    async destroy() {
      // its data goes with the folder: no shutdown checkpoint needed
      await stopServer(c, 'immediate');
      rmSync(c.dir, { recursive: true, force: true });
    },
  };
}

/** The template cluster copied into a new temp folder (its own random password, set once it runs), a free port chosen, the URL file written. */
async function initCluster(maxConnections: number): Promise<Cluster> {
  const bin = postgresBinDir();
  const dir = mkdtempSync(join(tmpdir(), 'wbsync-pg-'));
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  const password = `pw-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
  if (asRoot) {
    const { uid, gid } = postgresIds();
    chownTree(dir, uid, gid);
  }
  const template = templateCluster(bin);
  const copy = spawnSync('cp', ['-a', template.dataDir, dataDir], { encoding: 'utf8' });
  if (copy.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`copying the template cluster failed (${copy.status}): ${copy.stderr}`);
  }
  const port = await freePort();
  // fsync off: the tests crash the server process, never the machine, so the OS keeps what was written.
  const options = [`-p ${port}`, `-k ${dir}`, "-c listen_addresses=127.0.0.1", `-c max_connections=${maxConnections}`, '-c fsync=off', '-c full_page_writes=off'].join(' ');
  const url = `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`;
  const adminUrl = `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  const urlFile = join(dir, 'postgres-url');
  writeFileSync(urlFile, `${url}\n`, { mode: 0o600 });
  return { bin, dir, dataDir, logFile, options, port, url, adminUrl, urlFile, templatePassword: template.password, password };
}

function serverLog(c: Cluster): string {
  return existsSync(c.logFile) ? readFileSync(c.logFile, 'utf8') : '';
}

/** The postmaster's pid while it runs, from its pid file. */
function serverPid(c: Cluster): number | null {
  const f = join(c.dataDir, 'postmaster.pid');
  if (!existsSync(f)) return null;
  const n = Number(readFileSync(f, 'utf8').split('\n')[0]);
  if (!Number.isInteger(n) || n <= 0) return null;
  try {
    process.kill(n, 0);
    return n;
  } catch {
    return null;
  }
}

async function startServer(c: Cluster): Promise<void> {
  // a server just stopped may still await its reaping (a zombie): its lock file must not stop pg_ctl
  for (let i = 0; i < 200 && serverPid(c) !== null; i++) await new Promise((r) => setTimeout(r, 25));
  const r = runAsServerUser(join(c.bin, 'pg_ctl'), ['-D', c.dataDir, '-l', c.logFile, '-o', c.options, '-w', '-t', '60', 'start']);
  if (r.status !== 0) throw new Error(`pg_ctl start failed (${r.status}):\n${r.output.slice(-2000)}\n${serverLog(c).slice(-3000)}`);
}

/** Stops the server by pid ('fast': SIGINT; 'immediate': SIGQUIT), SIGKILL after 30 s. */
async function stopServer(c: Cluster, mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
  const p = serverPid(c);
  if (p === null) return;
  process.kill(p, mode === 'fast' ? 'SIGINT' : 'SIGQUIT');
  const until = Date.now() + 30_000;
  for (;;) {
    if (!running(p)) return;
    if (Date.now() > until) {
      process.kill(p, 'SIGKILL');
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function connectTo(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  c.on('error', () => undefined);
  await c.connect();
  return c;
}

/** The copy's own password, in place of the template's (the database is in the template). */
async function setPassword(c: Cluster): Promise<void> {
  const admin = new pg.Client({ connectionString: c.adminUrl.replace(encodeURIComponent(c.password), encodeURIComponent(c.templatePassword)) });
  await admin.connect();
  await admin.query(`alter role ${USER} password '${c.password}'`);
  await admin.end();
}

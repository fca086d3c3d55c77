// Wires the pieces into a running emulator: the node:http server, the world (rebuilt by reset()),
// faults, the request log, the asynchronous automation queue and the in-process controls.

import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { drainEvents } from './automation-engine.js';
import { buildWorld, DEFAULT_START, type BuiltWorld } from './build-world.js';
import { EmulatorClockImpl } from './emulator-clock.js';
import { Faults } from './faults.js';
import { RequestLogImpl } from './request-log.js';
import { Router } from './router.js';
import { allRoutes } from './routes/index.js';
import { Serializer } from './serialize.js';
import { RequestHandler } from './server.js';
import type { EmulatorDump, EmulatorOptions, EmulatorUser, RunningEmulator } from './types.js';
import type { World } from './world.js';

/** What the server and the controls share: the world (rebuilt by reset()), faults, the log, the
 * automation queue and the sleeping requests (woken by stop()). */
interface EmulatorCore {
  opts: EmulatorOptions;
  start: Date;
  clock: EmulatorClockImpl;
  built: BuiltWorld;
  faults: Faults;
  log: RequestLogImpl;
  sleepers: Set<() => void>;
  stopping: boolean;
  /** The automation queue: runs one after another, each on its own turn of the event loop. */
  pending: Promise<void>;
}

/** The emulator's HTTP server with its open connections (destroyed by stop()). */
interface Listening {
  server: Server;
  sockets: Set<Socket>;
  baseUrl: string;
}

export async function startEmulator(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  const start = opts.startTime ?? DEFAULT_START;
  const clock = new EmulatorClockImpl(opts.clockMode ?? 'manual', start);
  const core: EmulatorCore = {
    opts,
    start,
    clock,
    built: buildWorld(opts, clock, start),
    faults: new Faults(opts.randomSeed ?? 1, opts.latencyMs ?? 0, opts.failRate ?? 0),
    log: new RequestLogImpl(),
    sleepers: new Set(),
    stopping: false,
    pending: Promise.resolve(),
  };
  const handler = new RequestHandler({
    world: () => core.built.world,
    router: new Router(allRoutes),
    faults: core.faults,
    log: core.log,
    maxBodyBytes: opts.maxBodyBytes ?? 1024 * 1024,
    dbDownStallMs: opts.dbDownStallMs ?? 10_000,
    feedRowDelayMs: opts.feedRowDelayMs ?? 2,
    startedAt: Date.now(),
    sleep: (ms) => sleep(core, ms),
    scheduleAutomations: (w) => scheduleAutomations(core, w),
  });
  const listening = await listen(handler, opts.host ?? '127.0.0.1', opts.port ?? 0);
  return controls(core, listening);
}

/** A request's pause (latency, a stalled database); cut short when the emulator stops. */
function sleep(core: EmulatorCore, ms: number): Promise<void> {
  return new Promise((resolve) => {
    if (core.stopping || ms <= 0) return resolve();
    const wake = (): void => {
      clearTimeout(timer);
      core.sleepers.delete(wake);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    core.sleepers.add(wake);
  });
}

/** Queues a run of the world's automations after the ones already queued. */
function scheduleAutomations(core: EmulatorCore, w: World): void {
  core.pending = core.pending.then(
    () =>
      new Promise<void>((resolve) => {
        setImmediate(() => {
          try {
            drainEvents(w);
          } finally {
            resolve();
          }
        });
      }),
  );
}

/** The node:http server, listening on host:port (0: a free port). */
async function listen(handler: RequestHandler, host: string, port: number): Promise<Listening> {
  const server: Server = createServer((req, res) => handler.handle(req, res));
  server.keepAliveTimeout = 5_000;
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  // Malformed HTTP must not take the process down.
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { server, sockets, baseUrl: `http://${hostForUrl}:${address.port}` };
}

/** The in-process controls of a running emulator. */
function controls(core: EmulatorCore, { server, sockets, baseUrl }: Listening): RunningEmulator {
  const { opts, clock, faults, log } = core;
  return {
    baseUrl,
    get apiKey() {
      return core.built.world.state.users.get(core.built.people[0]!._id)?.apiKey ?? '';
    },
    get users() {
      return users(core.built);
    },
    dialect: opts.dialect ?? 'spec',
    clock,
    requestLog: log,
    faults: {
      add: (rule) => faults.add(rule),
      setDatabaseDown: (down) => {
        faults.databaseDown = down;
      },
      setLatency: (ms) => {
        faults.latencyMs = ms;
      },
      setFailRate: (rate) => {
        faults.failRate = rate;
      },
      clear: () => faults.clear(),
    },
    rotateKey(userId: string): string {
      const s = core.built.world.state;
      const u = s.users.get(userId);
      if (!u || u.isBot) throw new Error(`unknown emulator user ${userId}`);
      const key = s.ids.apiKey();
      s.setUserKey(u, key, clock.now().toISOString());
      return key;
    },
    reset(): void {
      core.built = buildWorld(opts, clock, core.start);
      faults.clear();
      log.clear();
      core.pending = Promise.resolve();
    },
    dump: () => dumpWorld(core.built.world),
    idle: () => idle(core),
    async stop(): Promise<void> {
      core.stopping = true;
      for (const wake of [...core.sleepers]) wake();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
        server.closeAllConnections();
      });
    },
  };
}

/** The seeded people, with their keys as they are now. */
function users(built: BuiltWorld): EmulatorUser[] {
  return built.people.map((p) => {
    const u = built.world.state.users.get(p._id)!;
    return { id: u._id, email: u.email, firstName: u.firstName, lastName: u.lastName, apiKey: u.apiKey ?? '', sessionToken: u.sessionToken };
  });
}

function dumpWorld(world: World): EmulatorDump {
  const s = world.state;
  const all = <T extends object>(m: Map<string, T>): Array<Record<string, unknown>> => [...m.values()].map((d) => Serializer.plain(d));
  return {
    users: all(s.users),
    workspaces: all(s.workspaces),
    members: all(s.members),
    modules: all(s.modules),
    collections: all(s.collections),
    columns: all(s.columns),
    records: all(s.records),
    values: all(s.values),
    amendments: all(s.amendments),
    automations: all(s.automations),
    activity: [...s.activity.values()].map(({ ms: _ms, ...rest }) => Serializer.plain(rest)),
    grants: all(s.grants),
    notifications: all(s.notifications),
  };
}

/** Waits until the automation queue stops moving (runs can schedule further runs). */
async function idle(core: EmulatorCore): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const seen = core.pending;
    await seen;
    await new Promise((r) => setImmediate(r));
    if (seen === core.pending && core.built.world.events.length === 0) return;
  }
}

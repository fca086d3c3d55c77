// Wires the pieces into a running emulator: the node:http server, the world (rebuilt by reset()),
// faults, the request log, the asynchronous automation queue and the in-process controls.

import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { drainEvents } from './automation-engine.js';
import { buildWorld, DEFAULT_START } from './build-world.js';
import { EmulatorClockImpl } from './emulator-clock.js';
import { Faults } from './faults.js';
import { forgetModuleContent } from './forget.js';
import { RequestLogImpl } from './request-log.js';
import { Router } from './router.js';
import { allRoutes } from './routes/index.js';
import { Serializer } from './serialize.js';
import { RequestHandler } from './server.js';
import type { EmulatorDump, EmulatorOptions, EmulatorUser, RunningEmulator } from './types.js';
import type { World } from './world.js';

export async function startEmulator(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  const start = opts.startTime ?? DEFAULT_START;
  const clock = new EmulatorClockImpl(opts.clockMode ?? 'manual', start);
  let built = buildWorld(opts, clock, start);
  const faults = new Faults(opts.randomSeed ?? 1, opts.latencyMs ?? 0, opts.failRate ?? 0);
  const log = new RequestLogImpl(opts.keepRequestLog ?? true);
  const router = new Router(allRoutes);

  const sleepers = new Set<() => void>();
  let stopping = false;
  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      if (stopping || ms <= 0) return resolve();
      const wake = (): void => {
        clearTimeout(timer);
        sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      sleepers.add(wake);
    });

  let pending: Promise<void> = Promise.resolve();
  const scheduleAutomations = (w: World): void => {
    pending = pending.then(
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
  };

  const handler = new RequestHandler({
    world: () => built.world,
    router,
    faults,
    log,
    maxBodyBytes: opts.maxBodyBytes ?? 1024 * 1024,
    dbDownStallMs: opts.dbDownStallMs ?? 10_000,
    feedRowDelayMs: opts.feedRowDelayMs ?? 2,
    startedAt: Date.now(),
    sleep,
    scheduleAutomations,
  });

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

  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const baseUrl = `http://${hostForUrl}:${address.port}`;

  const users = (): EmulatorUser[] =>
    built.people.map((p) => {
      const u = built.world.state.users.get(p._id)!;
      return { id: u._id, email: u.email, firstName: u.firstName, lastName: u.lastName, apiKey: u.apiKey ?? '', sessionToken: u.sessionToken };
    });

  const running: RunningEmulator = {
    baseUrl,
    get apiKey() {
      return built.world.state.users.get(built.people[0]!._id)?.apiKey ?? '';
    },
    get users() {
      return users();
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
      const s = built.world.state;
      const u = s.users.get(userId);
      if (!u || u.isBot) throw new Error(`unknown emulator user ${userId}`);
      const key = s.ids.apiKey();
      s.setUserKey(u, key, clock.now().toISOString());
      return key;
    },
    reset(): void {
      built = buildWorld(opts, clock, start);
      faults.clear();
      log.clear();
      pending = Promise.resolve();
    },
    dump(): EmulatorDump {
      const s = built.world.state;
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
    },
    forgetModuleContent(moduleIds: readonly string[]): void {
      forgetModuleContent(built.world.state, moduleIds);
    },
    async idle(): Promise<void> {
      // Runs can schedule further runs; wait until the queue stops moving.
      for (let i = 0; i < 100; i++) {
        const seen = pending;
        await seen;
        await new Promise((r) => setImmediate(r));
        if (seen === pending && built.world.events.length === 0) return;
      }
    },
    async stop(): Promise<void> {
      stopping = true;
      for (const wake of [...sleepers]) wake();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
        server.closeAllConnections();
      });
    },
  };
  return running;
}

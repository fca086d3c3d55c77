// Where a drill restores to: the bundled emulator, empty, on loopback, with one user per member of
// the snapshot (so members, grants, person cells and automations map to someone), or a staging service
// given by --target-url. Either way a client to it, the user map, and a stop().

import { createHttpClient } from '../api/http-client.js';
import type { ServiceClient } from '../api/port.js';
import type { Logger } from '../config/logger.js';
import type { Member } from '../domain/entities.js';
import { startEmulator } from '../emulator/index.js';
import type { Dialect, EmulatorPerson, RunningEmulator } from '../emulator/types.js';

export interface HttpSettings {
  concurrency: number;
  timeoutMs: number;
  retries: number;
}

export interface ScratchService {
  /** 'emulator (observed)' or the staging URL. */
  describe: string;
  client: ServiceClient;
  /** Old user id → user id on the scratch service (empty on staging: ids are kept). */
  userMap: Map<string, string>;
  /** Present for the bundled emulator (tests read its request log). */
  emulator?: RunningEmulator;
  /** Lets the emulator's asynchronous automation runs finish before the read-back. */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

/** One person per distinct user among the members: an owner first (the key holder creates the
 * workspace, so it must be the snapshot's owner), e-mails unique (the service keys users by them). */
export function peopleFor(members: Member[]): { people: EmulatorPerson[]; userIds: string[] } {
  const byUser = new Map<string, Member>();
  const ordered = [...members].sort((a, b) => Number(b.role === 'owner') - Number(a.role === 'owner'));
  for (const m of ordered) if (m.status !== 'removed' && !byUser.has(m.userId)) byUser.set(m.userId, m);
  const emails = new Set<string>();
  const people: EmulatorPerson[] = [];
  const userIds: string[] = [];
  for (const [userId, m] of byUser) {
    let email = (m.email ?? '').toLowerCase() || `${userId}@drill.invalid`;
    if (emails.has(email)) email = `${userId}.${email}`;
    emails.add(email);
    people.push({ firstName: m.firstName ?? '', lastName: m.lastName ?? '', email });
    userIds.push(userId);
  }
  // a snapshot without members still needs someone to restore as
  if (!people.length) people.push({ firstName: 'Drill', lastName: 'Operator', email: 'drill@drill.invalid' });
  return { people, userIds };
}

export async function startScratchEmulator(members: Member[], dialect: Dialect, http: HttpSettings, logger?: Logger): Promise<ScratchService> {
  const { people, userIds } = peopleFor(members);
  const emulator = await startEmulator({ dialect, seed: 'none', people, host: '127.0.0.1', port: 0, keepRequestLog: false });
  const users = emulator.users;
  const userMap = new Map(userIds.map((id, i) => [id, users[i]!.id]));
  const client = createHttpClient({ baseUrl: emulator.baseUrl, apiKey: emulator.apiKey, ...http, ...(logger ? { logger } : {}) });
  return {
    describe: `the bundled emulator (${dialect} dialect)`,
    client,
    userMap,
    emulator,
    settle: () => emulator.idle(),
    async stop() {
      await client.close();
      await emulator.stop();
    },
  };
}

export function stagingService(target: { baseUrl: string; apiKey: string }, http: HttpSettings, logger?: Logger): ScratchService {
  const client = createHttpClient({ baseUrl: target.baseUrl, apiKey: target.apiKey, ...http, ...(logger ? { logger } : {}) });
  return {
    describe: target.baseUrl,
    client,
    userMap: new Map(),
    // the staging service runs its automations on its own time: give it the restore's usual pause
    settle: () => new Promise((r) => setTimeout(r, 1000)),
    stop: () => client.close(),
  };
}

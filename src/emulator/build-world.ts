// Builds a fresh world from the options: users, the chosen seed, then the clock back at its
// start. Called at start and by reset(), so the same options always give the same world.

import { Access } from './access.js';
import { ActivityLog } from './activity.js';
import { DialectRules } from './dialect.js';
import type { UserDoc } from './docs.js';
import type { EmulatorClockImpl } from './emulator-clock.js';
import { IdGenerator, Prng } from './ids.js';
import { Serializer } from './serialize.js';
import { runSeed } from './seeds/index.js';
import { EmulatorState } from './state.js';
import type { EmulatorOptions } from './types.js';
import type { World } from './world.js';

export const DEFAULT_START = new Date('2026-01-15T09:00:00.000Z');

const PEOPLE: Array<[string, string, string]> = [
  ['Ada', 'Lovelace', 'ada@acme.example'],
  ['Grace', 'Hopper', 'grace@acme.example'],
  ['Alan', 'Turing', 'alan@elsewhere.example'],
];

export interface BuiltWorld {
  world: World;
  /** The three seeded people, in order (owner, member, outsider). */
  people: UserDoc[];
}

export function buildWorld(opts: EmulatorOptions, clock: EmulatorClockImpl, start: Date): BuiltWorld {
  const seed = opts.randomSeed ?? 1;
  const dialect = opts.dialect ?? 'spec';
  const state = new EmulatorState(
    { dialect, retentionDays: opts.retentionDays ?? 90 },
    new IdGenerator(seed),
    clock,
    new Prng(seed),
  );
  const rules = new DialectRules(dialect);
  const world: World = {
    state,
    rules,
    ser: new Serializer(state),
    access: new Access(state, rules),
    activity: new ActivityLog(state),
    events: [],
  };
  clock.restart(start);
  // Keys were generated long ago, so the spec's 20-minute window never blocks a first rotation.
  const keyedAt = new Date(clock.now().getTime() - 200 * 86_400_000).toISOString();
  const who = opts.people?.map((p): [string, string, string] => [p.firstName, p.lastName, p.email]) ?? PEOPLE;
  if (who.length === 0 || ((opts.seed ?? 'none') !== 'none' && who.length < 3)) throw new Error(`the emulator needs ${opts.seed && opts.seed !== 'none' ? 'three people for a seed' : 'at least one person'}`);
  const people = who.map(([firstName, lastName, email], i): UserDoc => {
    const generated = state.ids.apiKey();
    const doc: UserDoc = {
      _id: state.ids.id(),
      firstName,
      lastName,
      email,
      presence: i === 0 ? 'online' : 'offline',
      apiKey: i === 0 && opts.apiKey ? opts.apiKey : generated,
      apiKeyGeneratedAt: keyedAt,
      sessionToken: state.ids.sessionToken(),
      isBot: false,
      createdAt: keyedAt,
    };
    state.addUser(doc);
    return doc;
  });
  const bot: UserDoc = {
    _id: state.ids.id(),
    firstName: 'Automation',
    lastName: 'Bot',
    email: 'automation-bot@system.local',
    presence: 'online',
    apiKey: null,
    apiKeyGeneratedAt: null,
    sessionToken: state.ids.sessionToken(),
    isBot: true,
    createdAt: keyedAt,
  };
  state.addUser(bot);
  state.botId = bot._id;

  runSeed(world, opts.seed ?? 'none', people, opts.seedParams ?? {});
  world.events.length = 0;
  clock.restart(start);
  return { world, people };
}

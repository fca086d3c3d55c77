// The bag every write and route works with: state, dialect rules, serializer, access checks, the
// activity log and the queue of events automations react to. Rebuilt by reset().

import type { Access } from './access.js';
import type { ActivityLog } from './activity.js';
import type { DialectRules } from './dialect.js';
import type { Actor } from './actor.js';
import type { Json } from './docs.js';
import type { Serializer } from './serialize.js';
import type { EmulatorState } from './state.js';

export type AutomationEvent =
  | {
      type: 'record_created' | 'record_completed' | 'record_uncompleted' | 'record_archived' | 'record_moved' | 'record_renamed';
      record: string;
      actor: string;
      depth: number;
    }
  | { type: 'column_changed'; record: string; column: string; value: Json | null; actor: string; depth: number }
  | { type: 'amendment_posted'; record: string; amendment: string; actor: string; depth: number };

export interface World {
  state: EmulatorState;
  rules: DialectRules;
  ser: Serializer;
  access: Access;
  activity: ActivityLog;
  /** Events waiting for the automation engine. */
  events: AutomationEvent[];
}

export function emit(w: World, actor: Actor, event: AutomationEvent): void {
  if (!actor.fires) return;
  w.events.push(event);
}

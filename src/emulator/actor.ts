// Who performs a write: its own file so that the activity log and the world both name it
// without importing each other.

import type { AutomationDoc, UserDoc } from './docs.js';

/** Who performs a write: a person, or an automation acting for the person who set it off. */
export interface Actor {
  user: UserDoc;
  automation: AutomationDoc | null;
  /** Automation chain depth: 0 for a person's write. */
  depth: number;
  /** Observed: whether this write sets automations off (some API writes don't). */
  fires: boolean;
}

export function personActor(user: UserDoc): Actor {
  return { user, automation: null, depth: 0, fires: true };
}

// PIT routes. Spec: a 20-minute rotation window with `nextAllowedAt` and 429. Observed: no
// window, GET creates a key when none exists, generate answers `{message, apiKey}`.

import { fail } from '../http-reply.js';
import type { RouteDef } from '../router.js';
import { ok } from './helpers.js';

export const KEY_WINDOW_MS = 20 * 60 * 1000;

function nextAllowedAt(generatedAt: string | null, now: Date): string {
  if (!generatedAt) return now.toISOString();
  const t = Date.parse(generatedAt) + KEY_WINDOW_MS;
  return new Date(Math.max(t, now.getTime())).toISOString();
}

export const apiKeyRoutes: RouteDef[] = [
  {
    method: 'GET',
    template: '/api-key',
    handler: ({ w, user }) => {
      const now = w.state.clock.now();
      if (w.rules.observed) {
        if (!user.apiKey) w.state.setUserKey(user, w.state.ids.apiKey(), w.state.clock.stamp());
        return ok({ apiKey: user.apiKey });
      }
      return ok({ apiKey: user.apiKey, nextAllowedAt: nextAllowedAt(user.apiKeyGeneratedAt, now) });
    },
  },
  {
    method: 'POST',
    template: '/api-key/generate',
    handler: ({ w, user }) => {
      const now = w.state.clock.now();
      if (!w.rules.observed && user.apiKeyGeneratedAt) {
        const allowed = Date.parse(user.apiKeyGeneratedAt) + KEY_WINDOW_MS;
        if (now.getTime() < allowed) {
          throw fail(429, 'A new key can be generated once every 20 minutes', {
            nextAllowedAt: new Date(allowed).toISOString(),
          });
        }
      }
      const at = w.state.clock.stamp();
      w.state.setUserKey(user, w.state.ids.apiKey(), at);
      if (w.rules.observed) return ok({ message: 'API key generated successfully', apiKey: user.apiKey });
      return ok({ apiKey: user.apiKey, nextAllowedAt: nextAllowedAt(at, now) });
    },
  },
];

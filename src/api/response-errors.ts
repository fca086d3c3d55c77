// Maps a non-2xx answer to the WbsyncError the rest of wbsync acts on. The service's own
// `message` is surfaced (one line: shown()); HTML error pages are named as such.

import { shown } from '../domain/display-text.js';
import { WbsyncError } from '../domain/errors.js';
import { readServiceMessage } from './parse-body.js';
import type { ApiResponse } from './transport.js';

export const AUTH_HINT =
  'Set WBSYNC_API_KEY (or WBSYNC_API_KEY_FILE) to a current Personal Integration Token. Generating a new key invalidates the previous one at once.';

/** The observed service answers 400 "Invalid board id" for unknown child ids (not 404). */
const INVALID_ID = /invalid (board )?id/i;

export function authError(res: ApiResponse): WbsyncError {
  const said = readServiceMessage(res);
  return new WbsyncError(
    'auth',
    `${res.endpoint}: the service refused the API key (missing, invalid or rotated)${said ? `: ${shown(said)}` : ''}`,
    { endpoint: res.endpoint, status: res.status, hint: AUTH_HINT },
  );
}

export function errorFromResponse(res: ApiResponse): WbsyncError {
  const said = readServiceMessage(res);
  const html = said === undefined && /^\s*</.test(res.text);
  const tail = said !== undefined ? `: ${shown(said)}` : html ? ' (HTML error page)' : '';
  const base = { endpoint: res.endpoint, status: res.status };
  const s = res.status;
  if (s === 401) return authError(res);
  if (s === 403) {
    return new WbsyncError('forbidden', `${res.endpoint}: access denied (HTTP 403)${tail}`, {
      ...base,
      hint: 'The key\'s user is not a member of the workspace or has no access to the module.',
    });
  }
  if (s === 404 || (s === 400 && said !== undefined && INVALID_ID.test(said))) {
    return new WbsyncError('not_found', `${res.endpoint}: not found (HTTP ${s})${tail}`, {
      ...base,
      hint: html ? 'An HTML 404 means the route does not exist there: check baseUrl.' : undefined,
    });
  }
  if (s === 429) {
    return new WbsyncError('http', `${res.endpoint}: rate-limited (HTTP 429)${tail}`, { ...base, retryable: true });
  }
  if (s >= 500) {
    return new WbsyncError('unreachable', `${res.endpoint}: the service failed (HTTP ${s})${tail}`, {
      ...base,
      retryable: true,
      hint: 'The service is down or failing; wbsync retried with backoff. Try again later.',
    });
  }
  if (s >= 300 && s < 400) {
    // Redirects are never followed (the key must not travel to another address); say where it pointed.
    const to = res.location === undefined ? 'no Location given' : `to ${JSON.stringify(res.location.length > 200 ? `${res.location.slice(0, 200)}…` : res.location)}`;
    return new WbsyncError('http', `${res.endpoint}: the service answered with a redirect (HTTP ${s}) ${to}; wbsync does not follow redirects`, {
      ...base,
      hint: 'Set baseUrl to the address the service really answers at (a redirect usually means http vs https, a missing or extra path prefix, or a login page in front of it).',
    });
  }
  return new WbsyncError('http', `${res.endpoint}: request refused (HTTP ${s})${tail}`, base);
}

// Small helpers shared by the route files: list answers with the observed dialect's optional
// offset paging, and plain success replies.

import { json, type Reply } from '../http-reply.js';
import type { World } from '../world.js';

/** `{key: items}`; observed adds `pagination` when `page` or `limit` is in the query. */
export function listReply(w: World, key: string, items: unknown[], query: URLSearchParams): Reply {
  if (!w.rules.observed || (!query.has('page') && !query.has('limit'))) return json(200, { [key]: items });
  const page = Math.max(1, Math.floor(Number(query.get('page')) || 1));
  const rawLimit = Math.floor(Number(query.get('limit')) || 50);
  const limit = Math.min(200, Math.max(1, rawLimit));
  const total = items.length;
  const totalPages = Math.max(1, Math.ceil(total / limit));
  const hasMore = page < totalPages;
  return json(200, {
    [key]: items.slice((page - 1) * limit, page * limit),
    pagination: { page, limit, total, totalPages, hasMore, nextPage: hasMore ? page + 1 : null },
  });
}

export function ok(body: unknown, status = 200): Reply {
  return json(status, body);
}

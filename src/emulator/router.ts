// Route table: method + the spec's path template. The template doubles as the request-log name,
// so a route's name is exactly how the spec tables write it (e.g. `GET /records/{collectionId}`).

import type { UserDoc } from './docs.js';
import type { Reply } from './http-reply.js';
import type { Dialect } from './types.js';
import type { World } from './world.js';

export interface RouteCtx {
  w: World;
  user: UserDoc;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
}

export type Handler = (ctx: RouteCtx) => Reply;

export interface RouteDef {
  method: string;
  /** Path template relative to /api, as written in the spec tables. */
  template: string;
  handler: Handler;
  /** Dialects serving the route; both when absent. */
  only?: Dialect;
}

interface Compiled extends RouteDef {
  segments: Array<{ literal: string } | { param: string }>;
  literals: number;
  name: string;
}

export interface Match {
  route: Compiled;
  params: Record<string, string>;
}

export class Router {
  private readonly routes: Compiled[];
  /** The route table as given (its order), for the interface index. */
  readonly table: readonly RouteDef[];

  constructor(defs: RouteDef[]) {
    this.table = [...defs];
    this.routes = defs
      .map((d) => {
        const segments = d.template
          .split('/')
          .filter(Boolean)
          .map((s) => (s.startsWith('{') ? { param: s.slice(1, -1) } : { literal: s }));
        return {
          ...d,
          segments,
          literals: segments.filter((s) => 'literal' in s).length,
          name: `${d.method} ${d.template}`,
        };
      })
      // More literal segments first: `/record-values/references/{moduleId}` beats `/record-values/{recordId}`.
      .sort((a, b) => b.literals - a.literals);
  }

  /** `path` is relative to /api, already split on '?'. */
  match(method: string, path: string, dialect: Dialect): Match | null {
    const parts = path.split('/').filter(Boolean);
    for (const route of this.routes) {
      if (route.method !== method || route.segments.length !== parts.length) continue;
      if (route.only && route.only !== dialect) continue;
      const params: Record<string, string> = Object.create(null) as Record<string, string>;
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const seg = route.segments[i]!;
        const part = parts[i]!;
        if ('literal' in seg) ok = seg.literal === part;
        else params[seg.param] = safeDecode(part);
      }
      if (ok) return { route, params };
    }
    return null;
  }

  names(): string[] {
    return this.routes.map((r) => r.name);
  }
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

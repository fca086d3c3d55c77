// Endpoint naming and path building. Errors and logs name the route template
// (`GET /records/{collectionId}`), so one failing route reads the same whatever the id was.

import { WbsyncError } from '../domain/errors.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** GET, PUT and DELETE can be sent twice with the same effect; a POST creates something each time. */
export function isIdempotent(method: HttpMethod): boolean {
  return method !== 'POST';
}

/** `GET /records/{collectionId}`: the route as the spec names it, never a concrete id. */
export function describeEndpoint(method: HttpMethod, pathTemplate: string): string {
  return `${method} ${pathTemplate}`;
}

/** Fills `{name}` placeholders; every id is URL-encoded so an id can never add a path segment. */
export function buildPath(template: string, params: Readonly<Record<string, string>> = {}): string {
  return template.replace(/\{([A-Za-z0-9_]+)\}/g, (_m, name: string) => {
    const value = Object.hasOwn(params, name) ? params[name] : undefined;
    if (typeof value !== 'string' || value === '') {
      throw new WbsyncError('internal', `missing path parameter ${name} for ${template}`);
    }
    return encodeURIComponent(value);
  });
}

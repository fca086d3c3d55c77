// Every place the two dialects answer differently for errors and wrapping lives here, so route
// files read the same for both and the differences can be audited in one screen.

import { expressErrorPage, fail, HttpError, type Reply } from './http-reply.js';
import { isObjectId } from './ids.js';
import type { Dialect } from './types.js';

export type Kind =
  | 'workspace'
  | 'member'
  | 'module'
  | 'collection'
  | 'column'
  | 'record'
  | 'value'
  | 'amendment'
  | 'automation'
  | 'activity'
  | 'notification'
  | 'user';

const LABEL: Record<Kind, string> = {
  workspace: 'Workspace',
  member: 'Member',
  module: 'Module',
  collection: 'Collection',
  column: 'Column',
  record: 'Record',
  value: 'Record value',
  amendment: 'Amendment',
  automation: 'Automation',
  activity: 'Activity',
  notification: 'Notification',
  user: 'User',
};

/** Mongoose model names, for the observed dialect's raw validation messages. */
const MODEL: Record<Kind, string> = {
  workspace: 'Workspace',
  member: 'WorkspaceMember',
  module: 'Module',
  collection: 'Collection',
  column: 'Column',
  record: 'Record',
  value: 'RecordValue',
  amendment: 'Amendment',
  automation: 'Automation',
  activity: 'Activity',
  notification: 'Notification',
  user: 'User',
};

/** Children addressed by a board-scoped path id: the observed server answers 400 for them. */
const BOARD_CHILDREN: ReadonlySet<Kind> = new Set(['collection', 'column', 'record', 'value', 'amendment']);

export class DialectRules {
  constructor(readonly dialect: Dialect) {}

  get observed(): boolean {
    return this.dialect === 'observed';
  }

  /** An id in the path that does not resolve (malformed, unknown or deleted). */
  notFound(kind: Kind, id?: string): HttpError {
    if (this.observed) {
      if (BOARD_CHILDREN.has(kind)) return fail(400, 'Invalid board id');
      if (kind === 'module') {
        return id !== undefined && !isObjectId(id) ? fail(400, 'Invalid board id') : fail(404, 'Board not found');
      }
      if (kind === 'workspace' && id !== undefined && !isObjectId(id)) {
        return fail(500, `Cast to ObjectId failed for value "${id}" (type string) at path "_id" for model "Workspace"`);
      }
    }
    return fail(404, `${LABEL[kind]} not found`);
  }

  /** Parent of a child is gone (observed: the child's module was deleted, or its collection). */
  boardGone(): HttpError {
    return this.observed ? fail(404, 'Board not found') : fail(404, 'Module not found');
  }

  /** A required field is missing. Spec: 400; observed: 500 with Mongoose's message. */
  missing(kind: Kind, path: string): HttpError {
    if (this.observed) {
      return fail(500, `${MODEL[kind]} validation failed: ${path}: Path \`${path}\` is required.`);
    }
    return fail(400, `${path} is required`);
  }

  /** A field has the wrong type. Spec: 400; observed: 500 cast error. */
  badType(kind: Kind, path: string, value: unknown, expected: string): HttpError {
    if (this.observed) {
      const shown = safeShow(value);
      return fail(
        500,
        `${MODEL[kind]} validation failed: ${path}: Cast to ${expected} failed for value "${shown}" (type ${typeName(value)}) at path "${path}"`,
      );
    }
    return fail(400, `${path} must be a ${expected.toLowerCase()}`);
  }

  /** A value outside an enum. Spec: 400; observed: 500 Mongoose enum message. */
  badEnum(kind: Kind, path: string, value: unknown): HttpError {
    if (this.observed) {
      return fail(
        500,
        `${MODEL[kind]} validation failed: ${path}: \`${safeShow(value)}\` is not a valid enum value for path \`${path}\`.`,
      );
    }
    return fail(400, `${path} has an invalid value`);
  }

  forbiddenWorkspace(): HttpError {
    return fail(403, 'Not a member of this workspace');
  }

  forbiddenModule(): HttpError {
    return fail(403, 'You do not have access to this board');
  }

  forbidden(message: string): HttpError {
    return fail(403, message);
  }

  unknownRoute(method: string, path: string): Reply {
    if (this.observed) return expressErrorPage(404, `Cannot ${method} ${path}`);
    return { status: 404, json: { message: `Route not found: ${method} ${path}` } };
  }

  malformedJson(detail: string): Reply {
    if (this.observed) return expressErrorPage(400, `SyntaxError: ${detail}`);
    return { status: 400, json: { message: 'Malformed JSON body' } };
  }

  tooLarge(): Reply {
    if (this.observed) return expressErrorPage(413, 'PayloadTooLargeError: request entity too large');
    return { status: 413, json: { message: 'Request body too large' } };
  }

  /**
   * Create/update answers. Spec: records, modules... are `{key: obj}`; collections, columns and
   * record values come back bare. Observed: everything is `{message, key: obj}`.
   */
  wrap(key: string, obj: unknown, message: string, bareInSpec = false): unknown {
    if (this.observed) return { message, [key]: obj };
    return bareInSpec ? obj : { [key]: obj };
  }
}

export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'Array';
  return typeof value === 'object' ? 'Object' : typeof value;
}

function safeShow(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  } catch {
    text = '[unserialisable]';
  }
  return text.length > 100 ? text.slice(0, 100) + '…' : text;
}

export { HttpError };

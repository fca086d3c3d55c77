// Column routes, both scopes (`?scope=subrecord` for the sub-record grid), with relation and
// reference settings. Observed: missing type -> text, position 0, status options defaulted.

import { Body } from '../body.js';
import type { Json, StatusOptionDoc } from '../docs.js';
import { isObjectId } from '../ids.js';
import { fail } from '../http-reply.js';
import type { RouteDef } from '../router.js';
import { SUBRECORD_SEED_STATUS } from '../writes-records.js';
import { createColumn, deleteColumn, updateColumn } from '../writes-board.js';
import type { World } from '../world.js';
import { personActor } from '../actor.js';
import { listReply, ok } from './helpers.js';

export const COLUMN_TYPES: ReadonlySet<string> = new Set([
  'text',
  'number',
  'status',
  'date',
  'timeline',
  'person',
  'email',
  'phone',
  'checkbox',
  'dropdown',
  'link',
  'file',
  'rating',
  'relation',
  'reference',
]);
const AGGREGATES = new Set(['list', 'count', 'sum', 'avg', 'min', 'max']);

function readStatusOptions(w: World, b: Body): StatusOptionDoc[] | undefined {
  const raw = b.jsonCopy('statusOptions');
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) throw fail(400, 'statusOptions must be an array of {label, color}');
  const out: StatusOptionDoc[] = [];
  for (const o of raw) {
    if (o && typeof o === 'object' && !Array.isArray(o) && typeof o.label === 'string') {
      out.push({ label: o.label, color: typeof o.color === 'string' ? o.color : '#94A3B8', ...(w.rules.observed && isObjectId(o._id) ? { _id: o._id } : {}) });
    } else if (!w.rules.observed) {
      throw fail(400, 'statusOptions must be an array of {label, color}');
    }
  }
  return out;
}

function readSettings(w: World, b: Body, type: string): { [key: string]: Json } | undefined {
  const raw = b.jsonCopy('settings');
  if (raw === undefined || raw === null) {
    if (!w.rules.observed && type === 'relation') throw fail(400, 'settings.targetModule is required for relation columns');
    return undefined;
  }
  if (typeof raw !== 'object' || Array.isArray(raw)) throw fail(400, 'settings must be an object');
  if (w.rules.observed) return raw;
  // Shapes only: a restore may point at boards or columns that are recreated later, so ids are
  // not required to resolve (the deployed server does not check them either).
  if (type === 'relation' && (typeof raw.targetModule !== 'string' || raw.targetModule === '')) {
    throw fail(400, 'settings.targetModule is required for relation columns');
  }
  if (type === 'reference') {
    if (typeof raw.via !== 'string' || typeof raw.field !== 'string') throw fail(400, 'settings.via and settings.field are required for reference columns');
    if (raw.aggregate !== undefined && (typeof raw.aggregate !== 'string' || !AGGREGATES.has(raw.aggregate))) {
      throw fail(400, 'settings.aggregate must be one of list, count, sum, avg, min, max');
    }
  }
  return raw;
}

export const columnRoutes: RouteDef[] = [
  {
    method: 'GET',
    template: '/columns/{moduleId}',
    handler: ({ w, user, params, query }) => {
      const mod = w.access.module(params.moduleId!, user);
      const scope = query.get('scope') === 'subrecord' ? 'subrecord' : 'record';
      return listReply(w, 'columns', w.state.moduleColumns(mod._id, scope).map((c) => w.ser.column(c)), query);
    },
  },
  {
    method: 'POST',
    template: '/columns/{moduleId}',
    handler: ({ w, user, params, body }) => {
      const mod = w.access.module(params.moduleId!, user);
      const b = new Body(body, w.rules, 'column');
      const name = b.requiredString('name');
      const type = w.rules.observed && !b.has('type') ? 'text' : b.requiredString('type');
      if (!COLUMN_TYPES.has(type)) throw w.rules.badEnum('column', 'type', type);
      const scopeRaw = b.raw('scope');
      const scope = scopeRaw === 'subrecord' ? 'subrecord' : 'record';
      if (scopeRaw !== undefined && scopeRaw !== 'subrecord' && scopeRaw !== 'record' && !w.rules.observed) {
        throw fail(400, 'scope must be subrecord or omitted');
      }
      let statusOptions = readStatusOptions(w, b);
      if (type === 'status' && (!statusOptions || statusOptions.length === 0)) {
        statusOptions = SUBRECORD_SEED_STATUS.map((o) => ({ ...o }));
      }
      const doc = createColumn(w, personActor(user), mod, {
        name,
        type,
        scope,
        position: b.optionalNumber('position'),
        width: b.optionalNumber('width'),
        isRequired: b.optionalBoolean('isRequired'),
        isHidden: b.optionalBoolean('isHidden'),
        statusOptions,
        settings: readSettings(w, b, type),
      });
      return ok(w.rules.wrap('column', w.ser.column(doc), 'Column created successfully', true), 201);
    },
  },
  {
    method: 'PUT',
    template: '/columns/{columnId}',
    handler: ({ w, user, params, body }) => {
      const { doc, mod } = w.access.child(w.state.columns, 'column', params.columnId!, user);
      const b = new Body(body, w.rules, 'column');
      const name = b.optionalString('name');
      if (name === '') throw w.rules.missing('column', 'name');
      const statusOptions = readStatusOptions(w, b);
      if (statusOptions !== undefined && doc.type !== 'status' && !w.rules.observed) {
        throw fail(400, 'statusOptions apply to status columns only');
      }
      let settings: { [key: string]: Json } | undefined;
      // Settings are create-only in the spec; the deployed server accepts them on update too.
      if (w.rules.observed) {
        const raw = b.jsonCopy('settings');
        if (raw && typeof raw === 'object' && !Array.isArray(raw)) settings = raw;
      }
      updateColumn(w, personActor(user), mod, doc, {
        name,
        width: b.optionalNumber('width'),
        position: b.optionalNumber('position'),
        isRequired: b.optionalBoolean('isRequired'),
        isHidden: b.optionalBoolean('isHidden'),
        statusOptions,
        settings,
      });
      return ok(w.rules.wrap('column', w.ser.column(doc), 'Column updated successfully', true));
    },
  },
  {
    method: 'DELETE',
    template: '/columns/{columnId}',
    handler: ({ w, user, params }) => {
      const { doc, mod } = w.access.child(w.state.columns, 'column', params.columnId!, user);
      deleteColumn(w, personActor(user), mod, doc);
      return ok({ message: 'Column deleted successfully' });
    },
  },
];

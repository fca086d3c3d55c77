// Cell routes. Spec: create only for an empty pair, values validated against the encoding table,
// bare bodies. Observed: POST on an existing pair updates it (no automations), values stored as
// sent except number/email/phone checks, `column: null` for deleted columns.

import { Body } from '../body.js';
import type { ColumnDoc, Json, RecordDoc } from '../docs.js';
import { fail } from '../http-reply.js';
import { resolveReferences } from '../references.js';
import type { RouteDef } from '../router.js';
import { clearCell, setCell } from '../writes-records.js';
import type { World } from '../world.js';
import { personActor } from '../actor.js';
import { listReply, ok } from './helpers.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[0-9\s().-]{3,32}$/;

function parsesAs(value: string, check: (v: unknown) => boolean): boolean {
  try {
    return check(JSON.parse(value));
  } catch {
    return false;
  }
}

/** Spec: the encoding table is the contract. Observed: only number/email/phone are checked. */
export function checkValue(w: World, col: ColumnDoc, value: Json): void {
  if (w.rules.observed) {
    if (typeof value !== 'string' || value === '') return;
    if (col.type === 'number' && !Number.isFinite(Number(value))) throw fail(400, 'Invalid number value');
    if (col.type === 'email' && !EMAIL.test(value)) throw fail(400, 'Invalid email address');
    if (col.type === 'phone' && !PHONE.test(value)) throw fail(400, 'Invalid phone number');
    return;
  }
  if (typeof value !== 'string') throw fail(400, 'value must be a string encoded for the column type');
  if (value === '') return;
  const bad = (what: string): never => {
    throw fail(400, `value must be ${what} for a ${col.type} column`);
  };
  switch (col.type) {
    case 'number':
      if (!Number.isFinite(Number(value))) bad('a number');
      break;
    case 'checkbox':
      if (value !== 'true' && value !== 'false') bad('"true" or "false"');
      break;
    case 'rating': {
      const n = Number(value);
      if (!Number.isFinite(n) || n < 0 || !Number.isInteger(n * 2)) bad('a decimal in steps of 0.5');
      break;
    }
    case 'person':
    case 'relation':
      if (!parsesAs(value, (v) => Array.isArray(v) && v.every((x) => typeof x === 'string'))) bad('a JSON array of ids');
      break;
    case 'timeline':
      if (!parsesAs(value, (v) => typeof v === 'object' && v !== null && !Array.isArray(v))) bad('a JSON object {startDate, endDate}');
      break;
    case 'email':
      if (!EMAIL.test(value)) bad('an email address');
      break;
    case 'phone':
      if (!PHONE.test(value)) bad('a phone number');
      break;
    default:
      break;
  }
}

function columnFits(w: World, col: ColumnDoc | undefined, rec: RecordDoc): col is ColumnDoc {
  if (!col || col.module !== rec.module) return false;
  // The spec keeps the two grids apart; the deployed server does not check.
  return w.rules.observed || col.scope === (rec.parentRecord ? 'subrecord' : 'record');
}

export const recordValueRoutes: RouteDef[] = [
  {
    method: 'GET',
    template: '/record-values/{recordId}',
    handler: ({ w, user, params, query }) => {
      const { doc } = w.access.child(w.state.records, 'record', params.recordId!, user);
      const cells = w.state.valuesByRecord.get(doc._id);
      const rows = [];
      for (const id of cells?.values() ?? []) {
        const v = w.state.liveValue(id);
        if (v) rows.push(w.ser.value(v));
      }
      return listReply(w, 'values', rows, query);
    },
  },
  {
    method: 'GET',
    template: '/record-values/references/{moduleId}',
    handler: ({ w, user, params }) => {
      const mod = w.access.module(params.moduleId!, user);
      return ok({ references: resolveReferences(w, mod) });
    },
  },
  {
    method: 'POST',
    template: '/record-values',
    handler: ({ w, user, body }) => {
      const b = new Body(body, w.rules, 'value');
      const recordId = b.requiredString('record');
      const columnId = b.requiredString('column');
      if (!w.rules.observed) {
        for (const key of ['collectionName', 'module', 'workspace']) b.requiredString(key);
      }
      if (!b.has('value')) throw w.rules.missing('value', 'value');
      const value = b.jsonCopy('value') ?? null;
      const { doc: rec, mod } = w.access.child(w.state.records, 'record', recordId, user);
      if (!w.rules.observed && (b.raw('module') !== rec.module || b.raw('workspace') !== rec.workspace)) {
        throw fail(400, 'module and workspace must be those of the record');
      }
      const col = w.state.liveColumn(columnId);
      if (!columnFits(w, col, rec)) throw w.rules.observed ? fail(400, 'Invalid board id') : fail(404, 'Column not found');
      const existing = w.state.valueOf(rec._id, col._id);
      if (existing && !w.rules.observed) throw fail(400, 'This cell already has a value; update it with PUT /record-values/{id}');
      // Observed: POST on an existing pair updates it without validation.
      if (!existing) checkValue(w, col, value);
      // Observed: updating an existing pair through POST sets no automations off.
      const { doc, created } = setCell(w, personActor(user), mod, rec, col, value, { fires: !existing });
      const message = created ? 'Value created' : 'Value updated';
      return ok(w.rules.wrap('recordValue', w.ser.value(doc), message, true), created ? 201 : 200);
    },
  },
  {
    method: 'PUT',
    template: '/record-values/{recordValueId}',
    handler: ({ w, user, params, body }) => {
      const { doc, mod } = w.access.child(w.state.values, 'value', params.recordValueId!, user);
      const b = new Body(body, w.rules, 'value');
      if (!b.has('value')) throw w.rules.missing('value', 'value');
      const value = b.jsonCopy('value') ?? null;
      const rec = w.state.records.get(doc.record);
      const col = w.state.liveColumn(doc.column);
      if (!rec || !col) throw w.rules.notFound('value', doc._id);
      checkValue(w, col, value);
      setCell(w, personActor(user), mod, rec, col, value);
      return ok(w.rules.wrap('recordValue', w.ser.value(doc), 'Value updated', true));
    },
  },
  {
    method: 'DELETE',
    template: '/record-values/{recordValueId}',
    handler: ({ w, user, params }) => {
      const { doc, mod } = w.access.child(w.state.values, 'value', params.recordValueId!, user);
      clearCell(w, personActor(user), mod, doc);
      return ok({ message: 'Value deleted successfully' });
    },
  },
];

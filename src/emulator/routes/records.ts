// Record and sub-record routes. Spec: validated bodies, DELETE removes the record (its sub-records
// archived). Observed: PUT stores what it is given, DELETE archives (repeatable), the first
// sub-record of a board seeds Owner/Status/Due date even when the create then fails.

import { Body } from '../body.js';
import type { RecordDoc } from '../docs.js';
import { fail } from '../http-reply.js';
import type { RouteDef } from '../router.js';
import { sortByPosition } from '../state.js';
import { createRecord, deleteRecord, SUBRECORD_SEED_STATUS, updateRecord, type RecordPatch } from '../writes-records.js';
import { seedSubrecordColumns } from '../writes-board.js';
import { personActor } from '../actor.js';
import { listReply, ok } from './helpers.js';

export const recordRoutes: RouteDef[] = [
  {
    method: 'GET',
    template: '/records/{collectionId}',
    handler: ({ w, user, params, query }) => {
      const { doc } = w.access.child(w.state.collections, 'collection', params.collectionId!, user);
      const rows: RecordDoc[] = [];
      for (const id of w.state.recordsByCollection.get(doc._id)) {
        const r = w.state.records.get(id);
        if (r && !r.isDeleted && !r.isArchived && r.module === doc.module) rows.push(r);
      }
      return listReply(w, 'records', sortByPosition(rows).map((r) => w.ser.record(r)), query);
    },
  },
  {
    method: 'POST',
    template: '/records/{collectionId}',
    handler: ({ w, user, params, body }) => {
      const { doc, mod } = w.access.child(w.state.collections, 'collection', params.collectionId!, user);
      const name = new Body(body, w.rules, 'record').requiredString('name');
      const rec = createRecord(w, personActor(user), mod, doc._id, name, null);
      return ok(w.rules.wrap('record', w.ser.record(rec), 'Record created successfully'), 201);
    },
  },
  {
    method: 'GET',
    template: '/records/{recordId}/sub-records',
    handler: ({ w, user, params, query }) => {
      const { doc } = w.access.child(w.state.records, 'record', params.recordId!, user);
      return listReply(w, 'records', sortByPosition(w.state.liveSubRecords(doc._id)).map((r) => w.ser.record(r)), query);
    },
  },
  {
    method: 'POST',
    template: '/records/{recordId}/sub-records',
    handler: ({ w, user, params, body }) => {
      const { doc: parent, mod } = w.access.child(w.state.records, 'record', params.recordId!, user);
      const actor = personActor(user);
      // Observed seeds before validating anything, so a failed create still leaves the columns.
      if (w.rules.observed) seedSubrecordColumns(w, actor, mod, SUBRECORD_SEED_STATUS);
      const name = new Body(body, w.rules, 'record').requiredString('name');
      if (parent.parentRecord) throw fail(400, 'Sub-records cannot have their own sub-records');
      if (!w.rules.observed) seedSubrecordColumns(w, actor, mod, SUBRECORD_SEED_STATUS);
      const rec = createRecord(w, actor, mod, parent.collectionName, name, parent);
      return ok(w.rules.wrap('record', w.ser.record(rec), 'Sub-record created successfully'), 201);
    },
  },
  {
    method: 'PUT',
    template: '/records/{recordId}',
    handler: ({ w, user, params, body }) => {
      const { doc, mod } = w.access.child(w.state.records, 'record', params.recordId!, user);
      const b = new Body(body, w.rules, 'record');
      const patch: RecordPatch = {};
      if (w.rules.observed) {
        // The deployed server stores whatever it is given for these.
        if (b.has('name')) patch.name = b.jsonCopy('name');
        if (b.has('position')) patch.position = b.jsonCopy('position');
        const coll = b.raw('collectionName');
        if (typeof coll === 'string') patch.collectionName = coll;
      } else {
        const name = b.optionalString('name');
        if (name === '') throw w.rules.missing('record', 'name');
        patch.name = name;
        patch.position = b.optionalNumber('position');
        const coll = b.optionalString('collectionName');
        if (coll !== undefined) {
          const target = w.state.liveCollection(coll);
          if (!target || target.module !== mod._id) throw fail(400, 'collectionName must be a collection of this board');
          patch.collectionName = coll;
        }
      }
      patch.isCompleted = b.optionalBoolean('isCompleted');
      patch.isArchived = b.optionalBoolean('isArchived');
      updateRecord(w, personActor(user), mod, doc, patch);
      return ok(w.rules.wrap('record', w.ser.record(doc), 'Record updated successfully'));
    },
  },
  {
    method: 'DELETE',
    template: '/records/{recordId}',
    handler: ({ w, user, params }) => {
      const { doc, mod } = w.access.child(w.state.records, 'record', params.recordId!, user);
      const archivedSubRecords = deleteRecord(w, personActor(user), mod, doc);
      return ok({ message: 'Record deleted successfully', archivedSubRecords });
    },
  },
];

// Collection (group) routes. Spec answers creates/updates bare; observed wraps them, defaults
// position to 0 and does not cascade deletes.

import { Body } from '../body.js';
import type { RouteDef } from '../router.js';
import { createCollection, deleteCollection, updateCollection } from '../writes-board.js';
import { personActor } from '../actor.js';
import { listReply, ok } from './helpers.js';

export const collectionRoutes: RouteDef[] = [
  {
    method: 'GET',
    template: '/collections/{moduleId}',
    handler: ({ w, user, params, query }) => {
      const mod = w.access.module(params.moduleId!, user);
      return listReply(w, 'collections', w.state.moduleCollections(mod._id).map((c) => w.ser.collection(c)), query);
    },
  },
  {
    method: 'POST',
    template: '/collections/{moduleId}',
    handler: ({ w, user, params, body }) => {
      const mod = w.access.module(params.moduleId!, user);
      const b = new Body(body, w.rules, 'collection');
      const name = b.requiredString('name');
      const doc = createCollection(w, personActor(user), mod, {
        name,
        color: b.optionalString('color'),
        position: b.optionalNumber('position'),
        isCollapsed: b.optionalBoolean('isCollapsed'),
      });
      return ok(w.rules.wrap('collection', w.ser.collection(doc), 'Collection created successfully', true), 201);
    },
  },
  {
    method: 'PUT',
    template: '/collections/{collectionId}',
    handler: ({ w, user, params, body }) => {
      const { doc, mod } = w.access.child(w.state.collections, 'collection', params.collectionId!, user);
      const b = new Body(body, w.rules, 'collection');
      const name = b.optionalString('name');
      if (name === '') throw w.rules.missing('collection', 'name');
      updateCollection(w, personActor(user), mod, doc, {
        name,
        color: b.optionalString('color'),
        position: b.optionalNumber('position'),
        isCollapsed: b.optionalBoolean('isCollapsed'),
      });
      return ok(w.rules.wrap('collection', w.ser.collection(doc), 'Collection updated successfully', true));
    },
  },
  {
    method: 'DELETE',
    template: '/collections/{collectionId}',
    handler: ({ w, user, params }) => {
      const { doc, mod } = w.access.child(w.state.collections, 'collection', params.collectionId!, user);
      deleteCollection(w, personActor(user), mod, doc);
      return ok({ message: 'Collection deleted successfully' });
    },
  },
];

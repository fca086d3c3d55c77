// Amendment (threaded note) routes: oldest first, one level of replies, author-only edits,
// tombstones for deleted parents with live replies.

import { Body } from '../body.js';
import type { AmendmentDoc } from '../docs.js';
import { fail } from '../http-reply.js';
import type { RouteDef } from '../router.js';
import { deleteAmendment, editAmendment, listAmendments, postAmendment } from '../writes-amendments.js';
import { personActor } from '../actor.js';
import { listReply, ok } from './helpers.js';

function readMessage(b: Body): string {
  const m = b.raw('message');
  if (typeof m !== 'string' || m.trim() === '') throw fail(400, 'Message is required');
  return m;
}

export const amendmentRoutes: RouteDef[] = [
  {
    method: 'GET',
    template: '/amendments/{recordId}',
    handler: ({ w, user, params, query }) => {
      const { doc } = w.access.child(w.state.records, 'record', params.recordId!, user);
      return listReply(w, 'amendments', listAmendments(w, doc._id).map((a) => w.ser.amendment(a)), query);
    },
  },
  {
    method: 'POST',
    template: '/amendments/{recordId}',
    handler: ({ w, user, params, body }) => {
      const { doc: rec, mod } = w.access.child(w.state.records, 'record', params.recordId!, user);
      const b = new Body(body, w.rules, 'amendment');
      const message = readMessage(b);
      let parent: AmendmentDoc | null = null;
      const parentId = b.raw('parentComment');
      if (parentId !== undefined && parentId !== null && parentId !== '') {
        const p = typeof parentId === 'string' ? w.state.amendments.get(parentId) : undefined;
        // Replying to a deleted parent is allowed (the deployed server does); to a missing one not.
        if (!p || p.record !== rec._id || (!w.rules.observed && p.isDeleted && !w.state.amendmentsByRecord.get(rec._id).has(p._id))) {
          throw fail(400, 'Parent amendment not found on this record');
        }
        if (p.parentComment) throw fail(400, 'Replies are one level deep');
        parent = p;
      }
      let mentions: string[] = [];
      const rawMentions = b.raw('mentions');
      if (rawMentions !== undefined && !w.rules.observed) {
        if (!Array.isArray(rawMentions) || !rawMentions.every((m) => typeof m === 'string')) {
          throw fail(400, 'mentions must be an array of user ids');
        }
        mentions = rawMentions as string[];
      }
      const a = postAmendment(w, personActor(user), mod, rec, message, parent, mentions);
      return ok(w.rules.wrap('amendment', w.ser.amendment(a), 'Amendment posted successfully'), 201);
    },
  },
  {
    method: 'PUT',
    template: '/amendments/{amendmentId}',
    handler: ({ w, user, params, body }) => {
      const { doc, mod } = w.access.child(w.state.amendments, 'amendment', params.amendmentId!, user);
      const message = readMessage(new Body(body, w.rules, 'amendment'));
      if (doc.user !== user._id) throw w.rules.forbidden('You can only edit your own amendments');
      editAmendment(w, personActor(user), mod, doc, message);
      return ok(w.rules.wrap('amendment', w.ser.amendment(doc), 'Amendment updated successfully'));
    },
  },
  {
    method: 'DELETE',
    template: '/amendments/{amendmentId}',
    handler: ({ w, user, params }) => {
      const { doc, mod } = w.access.child(w.state.amendments, 'amendment', params.amendmentId!, user);
      if (doc.user !== user._id && !w.access.isManager(mod.workspace, user._id)) {
        throw w.rules.forbidden('You can only delete your own amendments');
      }
      deleteAmendment(w, personActor(user), mod, doc);
      return ok({ message: 'Amendment deleted successfully' });
    },
  },
];

// Amendment writes: posting (mentions and reply notifications in the spec dialect), editing and
// deleting with tombstones for parents that still have live replies.

import type { AmendmentDoc, ModuleDoc, RecordDoc } from './docs.js';
import { notify } from './notify.js';
import { displayName, touchModule, touchWorkspace } from './touch.js';
import { emit, type World } from './world.js';
import type { Actor } from './actor.js';

export function hasLiveReply(w: World, a: AmendmentDoc): boolean {
  for (const id of w.state.amendmentsByRecord.get(a.record)) {
    const r = w.state.amendments.get(id);
    if (r && !r.isDeleted && r.parentComment === a._id) return true;
  }
  return false;
}

/** Oldest first; a deleted amendment shows (as a tombstone) only while a live reply points at it. */
export function listAmendments(w: World, recordId: string): AmendmentDoc[] {
  const all: AmendmentDoc[] = [];
  for (const id of w.state.amendmentsByRecord.get(recordId)) {
    const a = w.state.amendments.get(id);
    if (a) all.push(a);
  }
  return all
    .filter((a) => !a.isDeleted || hasLiveReply(w, a))
    .sort((x, y) => (x.createdAt < y.createdAt ? -1 : x.createdAt > y.createdAt ? 1 : 0));
}

export function postAmendment(
  w: World,
  actor: Actor,
  mod: ModuleDoc,
  rec: RecordDoc,
  message: string,
  parent: AmendmentDoc | null,
  mentions: string[],
): AmendmentDoc {
  const at = w.state.clock.stamp();
  const doc: AmendmentDoc = {
    _id: w.state.ids.id(),
    record: rec._id,
    module: mod._id,
    workspace: mod.workspace,
    user: actor.user._id,
    message,
    parentComment: parent ? parent._id : null,
    edited: false,
    mentions: w.rules.observed ? [] : mentions,
    createdAt: at,
    updatedAt: at,
    isDeleted: false,
    deletedAt: null,
  };
  w.state.addAmendment(doc);
  // Observed: amendments touch only the workspace.
  if (w.rules.observed) touchWorkspace(w, actor, mod.workspace, at);
  else touchModule(w, actor, mod, at);
  w.activity.log(mod.workspace, actor, at, {
    action: 'comment_added',
    message: `${parent ? 'replied on' : 'commented on'} "${displayName(rec.name)}"`,
    targetName: displayName(rec.name),
    after: message,
    module: mod,
    collection: w.state.collections.get(rec.collectionName) ?? null,
    record: rec,
  });
  const told = new Set<string>([actor.user._id]);
  for (const userId of doc.mentions) {
    if (told.has(userId) || !w.state.activeMembership(mod.workspace, userId)) continue;
    told.add(userId);
    notify(w, at, {
      user: userId,
      type: 'mention',
      title: 'You were mentioned',
      message: `${actor.user.firstName} mentioned you on "${displayName(rec.name)}"`,
      workspace: mod.workspace,
      module: mod._id,
      record: rec._id,
    });
  }
  if (parent && !parent.isDeleted && !told.has(parent.user)) {
    notify(w, at, {
      user: parent.user,
      type: 'comment',
      title: 'New reply',
      message: `${actor.user.firstName} replied to your amendment on "${displayName(rec.name)}"`,
      workspace: mod.workspace,
      module: mod._id,
      record: rec._id,
    });
  }
  if (!parent) emit(w, actor, { type: 'amendment_posted', record: rec._id, amendment: doc._id, actor: actor.user._id, depth: actor.depth });
  return doc;
}

export function editAmendment(w: World, actor: Actor, mod: ModuleDoc, a: AmendmentDoc, message: string): void {
  const at = w.state.clock.stamp();
  const changed = message !== a.message;
  const before = a.message;
  a.message = message;
  // Observed sets `edited` only when the text changed; the spec's transition always sets it.
  if (changed || !w.rules.observed) a.edited = true;
  a.updatedAt = at;
  touchWorkspace(w, actor, mod.workspace, at);
  const rec = w.state.records.get(a.record);
  w.activity.log(mod.workspace, actor, at, {
    action: 'comment_edited',
    message: `edited an amendment on "${displayName(rec?.name)}"`,
    targetName: displayName(rec?.name),
    before,
    after: message,
    module: mod,
    record: rec ?? null,
  });
}

export function deleteAmendment(w: World, actor: Actor, mod: ModuleDoc, a: AmendmentDoc): void {
  const at = w.state.clock.stamp();
  w.state.markDeleted(a, at);
  // Spec: without live replies the amendment is gone for good; observed keeps it soft-deleted.
  if (!w.rules.observed && !hasLiveReply(w, a)) w.state.unindexAmendment(a);
  touchWorkspace(w, actor, mod.workspace, at);
  const rec = w.state.records.get(a.record);
  w.activity.log(mod.workspace, actor, at, {
    action: 'comment_deleted',
    message: `deleted an amendment on "${displayName(rec?.name)}"`,
    targetName: displayName(rec?.name),
    before: a.message,
    module: mod,
    record: rec ?? null,
  });
}

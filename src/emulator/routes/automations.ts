// Automation routes, module scope (columns by id) and workspace scope (columns by name).
// Spec PUT takes any subset; observed PUT takes `{isActive}` alone or a complete automation.

import { Body } from '../body.js';
import type { AutomationDoc, Json, ModuleDoc, UserDoc } from '../docs.js';
import { fail } from '../http-reply.js';
import type { RouteDef } from '../router.js';
import { SUPPORTED_TRIGGERS } from '../automation-engine.js';
import type { World } from '../world.js';
import { personActor } from '../actor.js';
import { listReply, ok } from './helpers.js';

// The engine runs every trigger type of the spec, so the valid set and the running set are one list.
export const TRIGGER_TYPES: ReadonlySet<string> = SUPPORTED_TRIGGERS;

export const ACTION_TYPES: ReadonlySet<string> = new Set([
  'set_column_value',
  'clear_column_value',
  'move_to_collection',
  'archive_record',
  'set_completed',
  'rename_record',
  'create_subrecord',
  'complete_all_subrecords',
  'archive_all_subrecords',
  'set_parent_column_value',
  'set_parent_completed',
  'move_parent_to_collection',
  'create_record',
  'post_amendment',
]);

const AUTOMATION_FIELDS = ['name', 'trigger', 'conditions', 'match', 'actions'] as const;

interface AutomationFields {
  name?: string;
  trigger?: { [key: string]: Json };
  conditions?: Json[];
  match?: string;
  actions?: Json[];
  isActive?: boolean;
}

function isObj(v: Json | undefined): v is { [key: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads and checks whichever automation fields are present; `complete` demands all of them. */
function readAutomationFields(w: World, b: Body, complete: boolean): AutomationFields {
  if (complete) {
    for (const f of AUTOMATION_FIELDS) if (!b.has(f)) throw fail(400, `${f} is required`);
  }
  const r: AutomationFields = {};
  if (b.has('name')) {
    const name = b.raw('name');
    if (typeof name !== 'string' || name.trim() === '') throw fail(400, 'name must be a non-empty string');
    r.name = name;
  }
  if (b.has('trigger')) {
    const t = b.jsonCopy('trigger');
    if (!isObj(t) || typeof t.type !== 'string' || !TRIGGER_TYPES.has(t.type)) throw fail(400, 'trigger.type is not a known trigger');
    r.trigger = t;
  }
  if (b.has('conditions')) {
    const c = b.jsonCopy('conditions');
    if (!Array.isArray(c) || !c.every((x) => isObj(x))) throw fail(400, 'conditions must be an array of objects');
    r.conditions = c;
  }
  if (b.has('match')) {
    const m = b.raw('match');
    if (m !== 'all' && m !== 'any') throw fail(400, 'match must be all or any');
    r.match = m;
  }
  if (b.has('actions')) {
    const a = b.jsonCopy('actions');
    if (!Array.isArray(a) || a.length === 0 || !a.every((x) => isObj(x) && typeof x.type === 'string' && ACTION_TYPES.has(x.type))) {
      throw fail(400, 'actions must be a non-empty array of known actions');
    }
    r.actions = a;
  }
  if (b.has('isActive')) {
    const v = b.raw('isActive');
    if (typeof v !== 'boolean') throw fail(400, 'isActive must be a boolean');
    r.isActive = v;
  }
  void w;
  return r;
}

function create(w: World, user: UserDoc, workspaceId: string, mod: ModuleDoc | null, body: unknown): AutomationDoc {
  const r = readAutomationFields(w, new Body(body, w.rules, 'automation'), true);
  const at = w.state.clock.stamp();
  const doc: AutomationDoc = {
    _id: w.state.ids.id(),
    workspace: workspaceId,
    module: mod ? mod._id : null,
    scope: mod ? 'module' : 'workspace',
    name: r.name!,
    trigger: r.trigger!,
    conditions: r.conditions!,
    match: r.match!,
    actions: r.actions!,
    isActive: r.isActive ?? true,
    runCount: 0,
    lastRunAt: null,
    lastError: '',
    createdBy: user._id,
    createdAt: at,
    updatedAt: at,
    isDeleted: false,
    deletedAt: null,
  };
  w.state.addAutomation(doc);
  w.activity.log(workspaceId, personActor(user), at, {
    action: 'automation_created',
    message: `created automation "${doc.name}"`,
    targetName: doc.name,
    module: mod,
  });
  return doc;
}

function findAutomation(w: World, id: string, user: UserDoc): { doc: AutomationDoc; mod: ModuleDoc | null } {
  const doc = w.state.automations.get(id);
  if (!doc || doc.isDeleted || !w.state.liveWorkspace(doc.workspace)) throw w.rules.notFound('automation', id);
  if (doc.module) return { doc, mod: w.access.moduleOf(doc.module, user) };
  w.access.requireMember(doc.workspace, user);
  return { doc, mod: null };
}

function workspaceFor(w: World, id: string, user: UserDoc): string {
  const ws = w.state.liveWorkspace(id);
  if (!ws) throw w.rules.notFound('workspace', id);
  w.access.requireMember(ws._id, user);
  return ws._id;
}

function listOf(w: World, ids: Iterable<string>): unknown[] {
  const out: AutomationDoc[] = [];
  for (const id of ids) {
    const a = w.state.automations.get(id);
    if (a && !a.isDeleted) out.push(a);
  }
  return out.sort((a, b) => (a.createdAt < b.createdAt ? -1 : 1)).map((a) => w.ser.automation(a));
}

export const automationRoutes: RouteDef[] = [
  {
    method: 'GET',
    template: '/automations/{moduleId}',
    handler: ({ w, user, params, query }) => {
      const mod = w.access.module(params.moduleId!, user);
      return listReply(w, 'automations', listOf(w, w.state.automationsByModule.get(mod._id)), query);
    },
  },
  {
    method: 'GET',
    template: '/automations/workspace/{workspaceId}',
    handler: ({ w, user, params, query }) => {
      const ws = workspaceFor(w, params.workspaceId!, user);
      return listReply(w, 'automations', listOf(w, w.state.automationsByWorkspace.get(ws)), query);
    },
  },
  {
    method: 'POST',
    template: '/automations/{moduleId}',
    handler: ({ w, user, params, body }) => {
      const mod = w.access.module(params.moduleId!, user);
      const doc = create(w, user, mod.workspace, mod, body);
      return ok({ message: 'Automation created successfully', automation: w.ser.automation(doc) }, 201);
    },
  },
  {
    method: 'POST',
    template: '/automations/workspace/{workspaceId}',
    handler: ({ w, user, params, body }) => {
      const ws = workspaceFor(w, params.workspaceId!, user);
      const doc = create(w, user, ws, null, body);
      return ok({ message: 'Automation created successfully', automation: w.ser.automation(doc) }, 201);
    },
  },
  {
    method: 'PUT',
    template: '/automations/{automationId}',
    handler: ({ w, user, params, body }) => {
      const { doc, mod } = findAutomation(w, params.automationId!, user);
      const b = new Body(body, w.rules, 'automation');
      let r: AutomationFields;
      if (w.rules.observed) {
        const keys = b.keys().filter((k) => b.has(k));
        if (keys.length === 1 && keys[0] === 'isActive') r = readAutomationFields(w, b, false);
        else {
          // Observed: anything but `{isActive}` must be a whole automation, which re-activates it.
          r = readAutomationFields(w, b, true);
          r.isActive = r.isActive ?? true;
        }
      } else {
        r = readAutomationFields(w, b, false);
      }
      const at = w.state.clock.stamp();
      if (r.name !== undefined) doc.name = r.name;
      if (r.trigger !== undefined) doc.trigger = r.trigger;
      if (r.conditions !== undefined) doc.conditions = r.conditions;
      if (r.match !== undefined) doc.match = r.match;
      if (r.actions !== undefined) doc.actions = r.actions;
      if (r.isActive !== undefined) doc.isActive = r.isActive;
      doc.updatedAt = at;
      w.activity.log(doc.workspace, personActor(user), at, {
        action: 'automation_updated',
        message: `updated automation "${doc.name}"`,
        targetName: doc.name,
        module: mod,
      });
      return ok({ message: 'Automation updated successfully', automation: w.ser.automation(doc) });
    },
  },
  {
    method: 'DELETE',
    template: '/automations/{automationId}',
    handler: ({ w, user, params }) => {
      const { doc, mod } = findAutomation(w, params.automationId!, user);
      const at = w.state.clock.stamp();
      w.state.markDeleted(doc, at);
      w.state.unindexAutomation(doc);
      w.activity.log(doc.workspace, personActor(user), at, {
        action: 'automation_deleted',
        message: `deleted automation "${doc.name}"`,
        targetName: doc.name,
        module: mod,
      });
      return ok({ message: 'Automation deleted successfully' });
    },
  },
];

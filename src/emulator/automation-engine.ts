// The automation engine: turns write events into automation runs (trigger -> conditions -> actions).
// Module automations address columns by id, workspace automations by name (case-insensitive) on every
// module. Chains are capped at MAX_DEPTH so automations that set each other off cannot loop forever.

import type { AutomationDoc, ColumnDoc, Json, ModuleDoc, RecordDoc } from './docs.js';
import { displayName } from './touch.js';
import { clearCell, createRecord, setCell, updateRecord } from './writes-records.js';
import { postAmendment } from './writes-amendments.js';
import type { AutomationEvent, World } from './world.js';
import type { Actor } from './actor.js';

export const MAX_DEPTH = 4;

/** What runs; anything else is stored and listed but never fires. Mirrored in AUTOMATIONS.md. */
export const SUPPORTED_TRIGGERS: ReadonlySet<string> = new Set([
  'record_created',
  'record_moved',
  'record_renamed',
  'record_completed',
  'record_uncompleted',
  'record_archived',
  'column_changed',
  'column_changed_to',
  'subrecord_created',
  'subrecord_column_changed',
  'subrecord_column_changed_to',
  'subrecord_completed',
  'all_subrecords_completed',
  'amendment_posted',
]);

type Obj = { [key: string]: Json };

function isObj(v: Json | undefined): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: Json | undefined): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

class ActionError extends Error {}

export function drainEvents(w: World): void {
  // A hard cap on events per drain, on top of the depth cap, so nothing can spin the loop.
  let budget = 10_000;
  while (w.events.length > 0 && budget-- > 0) {
    const ev = w.events.shift()!;
    try {
      handleEvent(w, ev);
    } catch {
      // A broken automation must never take the server down; its error is recorded on the automation.
    }
  }
  w.events.length = 0;
}

function triggerTypes(w: World, ev: AutomationEvent, rec: RecordDoc): Array<{ type: string; target: RecordDoc }> {
  const sub = rec.parentRecord !== null;
  switch (ev.type) {
    case 'record_created':
      return [{ type: sub ? 'subrecord_created' : 'record_created', target: rec }];
    case 'column_changed':
      return sub
        ? [
            { type: 'subrecord_column_changed', target: rec },
            { type: 'subrecord_column_changed_to', target: rec },
          ]
        : [
            { type: 'column_changed', target: rec },
            { type: 'column_changed_to', target: rec },
          ];
    case 'record_completed': {
      if (!sub) return [{ type: 'record_completed', target: rec }];
      const out = [{ type: 'subrecord_completed', target: rec }];
      const parent = w.state.liveRecord(rec.parentRecord!);
      if (parent && w.state.liveSubRecords(parent._id).every((s) => s.isCompleted)) {
        out.push({ type: 'all_subrecords_completed', target: parent });
      }
      return out;
    }
    case 'amendment_posted':
      return [{ type: 'amendment_posted', target: rec }];
    default:
      return sub ? [] : [{ type: ev.type, target: rec }];
  }
}

function handleEvent(w: World, ev: AutomationEvent): void {
  if (ev.depth >= MAX_DEPTH) return;
  const rec = w.state.liveRecord(ev.record);
  const mod = rec ? w.state.liveModule(rec.module) : undefined;
  const person = w.state.users.get(ev.actor);
  if (!rec || !mod || !person) return;
  const automations: AutomationDoc[] = [];
  for (const id of w.state.automationsByModule.get(mod._id)) {
    const a = w.state.automations.get(id);
    if (a && !a.isDeleted && a.isActive) automations.push(a);
  }
  for (const id of w.state.automationsByWorkspace.get(mod.workspace)) {
    const a = w.state.automations.get(id);
    if (a && !a.isDeleted && a.isActive) automations.push(a);
  }
  if (automations.length === 0) return;
  for (const { type, target } of triggerTypes(w, ev, rec)) {
    for (const a of automations) {
      if (str(a.trigger.type) !== type || !triggerMatches(w, a, ev, mod)) continue;
      if (!conditionsHold(w, a, mod, target)) continue;
      run(w, a, mod, target, { user: person, automation: a, depth: ev.depth + 1, fires: true });
    }
  }
}

function triggerMatches(w: World, a: AutomationDoc, ev: AutomationEvent, mod: ModuleDoc): boolean {
  if (ev.type !== 'column_changed') return true;
  const col = w.state.columns.get(ev.column);
  if (!col) return false;
  const wantId = str(a.trigger.column);
  const wantName = str(a.trigger.columnName);
  if (a.scope === 'workspace') {
    if (wantName && wantName.toLowerCase() !== col.name.toLowerCase()) return false;
  } else if (wantId && wantId !== col._id) return false;
  void mod;
  if (str(a.trigger.type).endsWith('_to')) return str(ev.value) === str(a.trigger.value);
  return true;
}

function findColumn(w: World, a: AutomationDoc, mod: ModuleDoc, rec: RecordDoc, ref: Obj): ColumnDoc | undefined {
  const scope = rec.parentRecord ? 'subrecord' : 'record';
  const cols = w.state.moduleColumns(mod._id, scope);
  const id = str(ref.column);
  const name = str(ref.columnName).toLowerCase();
  if (a.scope === 'workspace' || (!id && name)) return cols.find((c) => c.name.toLowerCase() === name);
  return cols.find((c) => c._id === id);
}

function cellText(w: World, rec: RecordDoc, col: ColumnDoc | undefined): string {
  if (!col) return '';
  const v = w.state.valueOf(rec._id, col._id);
  return v ? str(v.value) : '';
}

function conditionsHold(w: World, a: AutomationDoc, mod: ModuleDoc, rec: RecordDoc): boolean {
  const conds = a.conditions.filter(isObj);
  if (conds.length === 0) return true;
  const results = conds.map((c) => evalCondition(w, a, mod, rec, c));
  return str(a.match) === 'any' ? results.some(Boolean) : results.every(Boolean);
}

function evalCondition(w: World, a: AutomationDoc, mod: ModuleDoc, rec: RecordDoc, c: Obj): boolean {
  let actual: string[];
  if (str(c.source) === 'record') {
    const col = w.state.collections.get(rec.collectionName);
    switch (str(c.field)) {
      case 'name':
        actual = [displayName(rec.name)];
        break;
      case 'collection':
        actual = [rec.collectionName, col?.name ?? ''];
        break;
      case 'is_completed':
        actual = [String(rec.isCompleted)];
        break;
      case 'is_archived':
        actual = [String(rec.isArchived)];
        break;
      case 'subrecord_count':
        actual = [String(w.state.liveSubRecords(rec._id).length)];
        break;
      case 'amendment_count':
        actual = [String(w.state.liveAmendments(rec._id).length)];
        break;
      default:
        return false;
    }
  } else {
    actual = [cellText(w, rec, findColumn(w, a, mod, rec, c))];
  }
  const want = str(c.value);
  const test = (x: string): boolean => {
    const lx = x.toLowerCase();
    const lw = want.toLowerCase();
    switch (str(c.op)) {
      case 'is':
        return x === want;
      case 'is_not':
        return x !== want;
      case 'is_empty':
        return x === '' || x === '[]';
      case 'is_not_empty':
        return !(x === '' || x === '[]');
      case 'contains':
        return lx.includes(lw);
      case 'not_contains':
        return !lx.includes(lw);
      case 'starts_with':
        return lx.startsWith(lw);
      case 'greater_than':
        return Number(x) > Number(want);
      case 'less_than':
        return Number(x) < Number(want);
      default:
        return false;
    }
  };
  const negative = ['is_not', 'not_contains', 'is_empty'].includes(str(c.op));
  return negative ? actual.every(test) : actual.some(test);
}

function run(w: World, a: AutomationDoc, mod: ModuleDoc, rec: RecordDoc, actor: Actor): void {
  const at = w.state.clock.now().toISOString();
  try {
    for (const action of a.actions) {
      if (isObj(action)) runAction(w, a, mod, rec, action, actor);
    }
    a.runCount += 1;
    a.lastError = '';
  } catch (err) {
    a.lastError = (err instanceof Error ? err.message : String(err)).slice(0, 300);
  }
  a.lastRunAt = at;
}

function parseBool(v: Json | undefined): boolean {
  if (v === undefined || v === null) return true;
  return v === true || str(v).toLowerCase() === 'true';
}

function findCollection(w: World, mod: ModuleDoc, ref: string): string {
  const cols = w.state.moduleCollections(mod._id);
  const hit = cols.find((c) => c._id === ref) ?? cols.find((c) => c.name.toLowerCase() === ref.toLowerCase());
  if (!hit) throw new ActionError(`Collection "${ref}" not found on board "${mod.name}"`);
  return hit._id;
}

function runAction(w: World, a: AutomationDoc, mod: ModuleDoc, rec: RecordDoc, act: Obj, actor: Actor): void {
  const type = str(act.type);
  const parentOf = (r: RecordDoc): RecordDoc => {
    const p = r.parentRecord ? w.state.liveRecord(r.parentRecord) : undefined;
    if (!p) throw new ActionError('Record has no parent record');
    return p;
  };
  const column = (target: RecordDoc): ColumnDoc => {
    const col = findColumn(w, a, mod, target, act);
    if (!col) throw new ActionError(`Column "${str(act.columnName) || str(act.column)}" not found on board "${mod.name}"`);
    return col;
  };
  const collectionRef = str(act.targetCollection) || str(act.collectionName) || str(act.value);
  switch (type) {
    case 'set_column_value':
      setCell(w, actor, mod, rec, column(rec), act.value ?? '');
      return;
    case 'set_parent_column_value': {
      const p = parentOf(rec);
      setCell(w, actor, mod, p, column(p), act.value ?? '');
      return;
    }
    case 'clear_column_value': {
      const v = w.state.valueOf(rec._id, column(rec)._id);
      if (v) clearCell(w, actor, mod, v);
      return;
    }
    case 'move_to_collection':
      updateRecord(w, actor, mod, rec, { collectionName: findCollection(w, mod, collectionRef) });
      return;
    case 'move_parent_to_collection':
      updateRecord(w, actor, mod, parentOf(rec), { collectionName: findCollection(w, mod, collectionRef) });
      return;
    case 'archive_record':
      updateRecord(w, actor, mod, rec, { isArchived: true });
      return;
    case 'set_completed':
      updateRecord(w, actor, mod, rec, { isCompleted: parseBool(act.value) });
      return;
    case 'set_parent_completed':
      updateRecord(w, actor, mod, parentOf(rec), { isCompleted: parseBool(act.value) });
      return;
    case 'rename_record':
      updateRecord(w, actor, mod, rec, { name: str(act.value).replace(/\{\{\s*name\s*\}\}/g, displayName(rec.name)) });
      return;
    case 'create_subrecord':
      if (rec.parentRecord) throw new ActionError('Sub-records cannot have sub-records');
      createRecord(w, actor, mod, rec.collectionName, str(act.value) || 'New sub-record', rec);
      return;
    case 'complete_all_subrecords':
      for (const s of w.state.liveSubRecords(rec._id)) updateRecord(w, actor, mod, s, { isCompleted: true });
      return;
    case 'archive_all_subrecords':
      for (const s of w.state.liveSubRecords(rec._id)) updateRecord(w, actor, mod, s, { isArchived: true });
      return;
    case 'create_record': {
      const targetId = str(act.targetModule);
      const target = targetId ? w.state.liveModule(targetId) : mod;
      if (!target || target.workspace !== mod.workspace) throw new ActionError(`Board "${targetId}" not found`);
      const first = w.state.moduleCollections(target._id)[0];
      const collRef = str(act.targetCollection) || str(act.collectionName);
      const coll = collRef ? findCollection(w, target, collRef) : first?._id;
      if (!coll) throw new ActionError(`Board "${target.name}" has no collection`);
      createRecord(w, actor, target, coll, str(act.value) || str(act.name) || displayName(rec.name), null);
      return;
    }
    case 'post_amendment':
      postAmendment(w, actor, mod, rec, str(act.value) || a.name, null, []);
      return;
    default:
      throw new ActionError(`Unsupported action type "${type}"`);
  }
}

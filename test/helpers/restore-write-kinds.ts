// The restore writer's write kinds, weighted: shapeKinds() for the first phase (structure, rows,
// cells, amendments, automations, grants — everything but archiving) and archiveKinds() for the
// second (archive / delete records and sub-records, replies on archived records). See
// restore-writes.ts for why there are two phases.

import type { Dialect } from '../../src/emulator/types.js';
import { unwrap } from './harness.js';
import { moduleAutomation, recordsFor, validValue, workspaceAutomation, type Doc, type Kind, type WriterTools } from './restore-write-values.js';

const VALID_TYPES = ['text', 'number', 'email', 'phone', 'status', 'checkbox', 'rating', 'date', 'person', 'dropdown', 'link', 'timeline', 'relation'];
/** Column types whose values the service checks on create, per dialect, with a value it refuses. */
const REFUSED: Record<Dialect, Record<string, string>> = {
  observed: { email: 'not-an-email', number: 'n/a', phone: 'call me maybe' },
  spec: { email: 'not-an-email', number: 'n/a', phone: 'call me maybe', checkbox: 'maybe', rating: '7.3', person: 'ada' },
};

export function shapeKinds(w: WriterTools): Kind[] {
  const observed = w.dialect === 'observed';
  return [
    // structure: collections
    [3, 'add collection', async (s) => {
      const tie = w.pick(s.colls);
      // observed: no position means 0 (a tie with the first); spec: an explicit equal position
      const body: Doc = { name: `group ${w.n}`, color: '#8B5CF6' };
      if (!observed || w.chance(0.3)) if (tie) body.position = tie.position;
      await w.call('POST', `/collections/${s.mod._id}`, body);
      return true;
    }],
    [2, 'collection position tie', async (s) => {
      const [a, b] = [w.pick(s.colls), w.pick(s.colls)];
      if (!a || !b || a === b) return false;
      await w.call('PUT', `/collections/${a._id}`, { position: b.position });
      return true;
    }],
    [1, 'edit collection', async (s) => {
      const c = w.pick(s.colls);
      if (!c) return false;
      const body: Doc = {};
      if (w.chance(0.5)) body.name = `group renamed ${w.n}`;
      if (w.chance(0.5)) body.color = '#EF4444';
      if (w.chance(0.4) || !Object.keys(body).length) body.isCollapsed = !c.isCollapsed;
      await w.call('PUT', `/collections/${c._id}`, body);
      return true;
    }],
    [0.7, 'delete collection', async (s) => {
      if (s.colls.length < 3) return false;
      const c = w.pick(s.colls)!;
      await w.call('DELETE', `/collections/${c._id}`);
      return true;
    }],
    [3, 'move parent away (then delete its old collection)', async (s) => {
      const parents = s.tops.filter((r) => s.subs.some((x) => x.parentRecord === r._id));
      const p = w.pick(parents.length && w.chance(0.8) ? parents : s.tops);
      const to = p && w.pick(s.colls.filter((c) => c._id !== p.collectionName));
      if (!p || !to) return false;
      await w.call('PUT', `/records/${p._id}`, { collectionName: to._id });
      if (s.colls.length > 2 && w.chance(0.4)) await w.call('DELETE', `/collections/${p.collectionName}`);
      return true;
    }],
    // structure: columns of both scopes
    [3, 'add column', async (s) => {
      const scope = w.chance(0.6) ? 'record' : 'subrecord';
      const type = w.pick(VALID_TYPES)!;
      const body: Doc = { name: `${type} ${w.n}`, type };
      if (scope === 'subrecord') body.scope = 'subrecord';
      const same = s.cols.filter((c) => c.scope === scope);
      const tie = w.pick(same);
      if (!observed || w.chance(0.3)) if (tie) body.position = tie.position;
      if (type === 'status') body.statusOptions = [{ label: 'Open', color: '#94A3B8' }, { label: 'Done', color: '#22C55E' }, { label: `Custom ${w.n}`, color: '#123456' }];
      if (type === 'relation') {
        const target = w.chance(0.8) ? w.pick(s.others) : s.mod;
        if (!target) return false;
        const far = w.pick(s.d.columns.filter((c) => c.module === target._id && !c.isDeleted && c.scope === 'record'));
        body.settings = { targetModule: target._id, ...(far ? { displayField: far._id } : {}) };
      }
      if (w.chance(0.3)) body.width = 120 + Math.floor(w.rnd() * 200);
      if (w.chance(0.2)) body.isRequired = true;
      if (w.chance(0.2)) body.isHidden = true;
      await w.call('POST', `/columns/${s.mod._id}`, body);
      return true;
    }],
    [1, 'add reference column', async (s) => {
      const via = w.pick(s.cols.filter((c) => c.type === 'relation' && c.scope === 'record'));
      const far = via && w.pick(s.d.columns.filter((c) => c.module === via.settings?.targetModule && !c.isDeleted && c.type !== 'reference'));
      if (!via || !far) return false;
      await w.call('POST', `/columns/${s.mod._id}`, { name: `ref ${w.n}`, type: 'reference', settings: { via: via._id, field: far._id, aggregate: w.pick(['list', 'count', 'sum']) } });
      return true;
    }],
    [2, 'column position tie', async (s) => {
      const a = w.pick(s.cols);
      const b = a && w.pick(s.cols.filter((c) => c.scope === a.scope && c._id !== a._id));
      if (!a || !b) return false;
      await w.call('PUT', `/columns/${a._id}`, { position: b.position });
      return true;
    }],
    [1.5, 'edit column', async (s) => {
      const c = w.pick(s.cols);
      if (!c) return false;
      const r = w.rnd();
      const body: Doc =
        c.type === 'status' && r < 0.3 ? { statusOptions: [{ label: 'Only', color: '#000000' }, { label: 'Done', color: '#22C55E' }] }
        : r < 0.5 ? { width: 90 + Math.floor(w.rnd() * 300) }
        : r < 0.65 ? { isRequired: !c.isRequired }
        : r < 0.8 ? { isHidden: !c.isHidden }
        : { name: `${c.type} renamed ${w.n}` };
      await w.call('PUT', `/columns/${c._id}`, body);
      return true;
    }],
    [1.5, 'delete column', async (s) => {
      // prefer a column holding values: observed keeps them (column: null), spec deletes them
      const withValues = s.cols.filter((c) => s.values.some((v) => v.column === c._id));
      const c = w.pick(withValues.length && w.chance(0.7) ? withValues : s.cols);
      if (!c || s.cols.length < 3) return false;
      await w.call('DELETE', `/columns/${c._id}`);
      return true;
    }],
    // records and sub-records
    [4, 'add record', async (s) => {
      const c = w.pick(s.colls);
      if (!c) return false;
      const name = w.pick([`row ${w.n}`, `Urgent ${w.n}`, `Epic ${w.n}`, `row ${w.n}7`])!;
      await w.call('POST', `/records/${c._id}`, { name });
      return true;
    }],
    [6, 'add sub-record', async (s) => {
      const p = w.pick(s.tops);
      if (!p) return false;
      await w.call('POST', `/records/${p._id}/sub-records`, { name: `sub ${w.n}` });
      return true;
    }],
    [3, 'record / sub-record position tie', async (s) => {
      const sub = w.chance(0.4);
      const a = w.pick(sub ? s.subs : s.tops);
      const siblings = a ? (sub ? s.subs.filter((x) => x.parentRecord === a.parentRecord) : s.tops.filter((x) => x.collectionName === a.collectionName)) : [];
      const b = w.pick(siblings.filter((x) => x._id !== a?._id));
      if (!a || !b) return false;
      await w.call('PUT', `/records/${a._id}`, { position: b.position });
      return true;
    }],
    [1.5, 'rename / complete', async (s) => {
      const r = w.pick(w.chance(0.5) ? s.subs : s.tops) ?? w.pick(s.tops);
      if (!r) return false;
      await w.call('PUT', `/records/${r._id}`, w.chance(0.5) ? { name: `renamed ${w.n}` } : { isCompleted: !r.isCompleted });
      return true;
    }],
    // cells
    [5, 'set a cell', async (s) => {
      const col = w.pick(s.cols.filter((c) => c.type !== 'reference'));
      const rec = col && w.pick(recordsFor(s, col));
      const value = col && rec && validValue(w, s, col);
      if (!col || !rec || value === undefined) return false;
      const existing = s.values.find((v) => v.record === rec._id && v.column === col._id);
      if (existing) await w.call('PUT', `/record-values/${existing._id}`, { value });
      else await w.postValue(rec, col, value);
      return true;
    }],
    [1, 'clear a cell', async (s) => {
      const v = w.pick(s.values.filter((x) => s.cols.some((c) => c._id === x.column)));
      if (!v) return false;
      await w.call('DELETE', `/record-values/${v._id}`);
      return true;
    }],
    [2, 'a value the service refuses when sent again', async (s) => {
      const refused = REFUSED[w.dialect];
      if (observed && w.chance(0.6)) {
        // observed: POST on a pair that has a value updates it without any check
        const col = w.pick(s.cols.filter((c) => c.type in refused && c.scope === 'record'));
        const rec = col && w.pick(s.tops);
        if (!col || !rec) return false;
        if (!s.values.some((v) => v.record === rec._id && v.column === col._id)) await w.postValue(rec, col, validValue(w, s, col)!);
        await w.postValue(rec, col, refused[col.type]!);
        return true;
      }
      // both: an automation's set_column_value is not checked either
      const scope = w.chance(0.75) ? 'record' : 'subrecord';
      let col = w.pick(s.cols.filter((c) => c.type in refused && c.scope === scope));
      if (!col) {
        const made = await w.call('POST', `/columns/${s.mod._id}`, { name: `email ${w.n}`, type: 'email', ...(scope === 'subrecord' ? { scope } : {}) });
        col = unwrap(made.body, 'column') as Doc;
      }
      await w.target.advance(60_000);
      await w.call('POST', `/automations/${s.mod._id}`, {
        name: `stamp a bad ${col.type} ${w.n}`,
        trigger: { type: scope === 'record' ? 'record_created' : 'subrecord_created' },
        conditions: [],
        match: 'all',
        actions: [{ type: 'set_column_value', column: col._id, value: refused[col.type] }],
        isActive: true,
      });
      const coll = w.pick(s.colls);
      const parent = w.pick(s.tops);
      if (scope === 'record' && coll) await w.call('POST', `/records/${coll._id}`, { name: `stamped ${w.n}` });
      else if (scope === 'subrecord' && parent) await w.call('POST', `/records/${parent._id}/sub-records`, { name: `stamped sub ${w.n}` });
      return true;
    }],
    // amendments
    [3, 'amendment', async (s) => {
      const r = w.pick(w.chance(0.8) ? s.tops : s.subs) ?? w.pick(s.tops);
      if (!r) return false;
      await w.call('POST', `/amendments/${r._id}`, { message: `note ${w.n}` });
      return true;
    }],
    [3, 'reply', async (s) => {
      const root = w.pick(s.amendments.filter((a) => !a.parentComment));
      if (!root) return false;
      await w.call('POST', `/amendments/${root.record}`, { message: `reply ${w.n}`, parentComment: root._id });
      return true;
    }],
    [1.5, 'edit own amendment', async (s) => {
      const a = w.pick(s.amendments.filter((x) => x.user === w.users[0]));
      if (!a) return false;
      await w.call('PUT', `/amendments/${a._id}`, { message: `edited ${w.n}` });
      return true;
    }],
    [2, 'delete an amendment (tombstone when it has replies)', async (s) => {
      const withReplies = s.amendments.filter((x) => !x.parentComment && s.amendments.some((y) => y.parentComment === x._id));
      const a = w.pick(withReplies.length && w.chance(0.7) ? withReplies : s.amendments);
      if (!a) return false;
      await w.call('DELETE', `/amendments/${a._id}`);
      return true;
    }],
    // automations
    [2, 'module automation', async (s) => {
      const automation = moduleAutomation(w, s);
      if (!automation) return false;
      await w.target.advance(60_000);
      await w.call('POST', `/automations/${s.mod._id}`, { ...automation, isActive: w.chance(0.75) });
      return true;
    }],
    [1, 'toggle / edit a module automation', async (s) => {
      const a = w.pick(s.autos);
      if (!a) return false;
      if (w.chance(0.6)) await w.call('PUT', `/automations/${a._id}`, { isActive: !a.isActive });
      else await w.call('PUT', `/automations/${a._id}`, { name: `${a.name} (edited)`, trigger: a.trigger, conditions: a.conditions, match: a.match, actions: a.actions, isActive: a.isActive });
      return true;
    }],
    [1, 'workspace automation', async (s) => {
      const a = w.pick(s.wsAutos);
      if (a && w.chance(0.5)) {
        await w.call('PUT', `/automations/${a._id}`, { isActive: !a.isActive });
        return true;
      }
      await w.target.advance(60_000);
      await w.call('POST', `/automations/workspace/${s.ws}`, { ...workspaceAutomation(w), isActive: w.chance(0.7) });
      return true;
    }],
    // the module itself and who may open it
    [1, 'private module + grant', async (s) => {
      const grace = w.users[1];
      if (!grace) return false; // a live run with one key has nobody to grant
      const access = await w.target.call('GET', `/module-access/${s.ws}/${grace}`);
      const granted: string[] = (access.body?.modules ?? []).filter((m: Doc) => m.granted).map((m: Doc) => m._id);
      if (s.mod.visibility !== 'private') await w.call('PUT', `/modules/${s.mod._id}`, { visibility: 'private' });
      const revoke = granted.includes(s.mod._id) && w.chance(0.3);
      await w.call('PUT', `/module-access/${s.ws}/${grace}`, { moduleIds: revoke ? granted.filter((x) => x !== s.mod._id) : [...new Set([...granted, s.mod._id])] });
      return true;
    }],
    [1, 'edit module', async (s) => {
      const r = w.rnd();
      const body: Doc =
        r < 0.25 ? { name: `${String(s.mod.name).slice(0, 30)} ${w.n}` }
        : r < 0.45 ? { description: `described at ${w.n}` }
        : r < 0.6 ? { icon: '🧪', color: '#F97316' }
        : r < 0.8 ? { tags: [{ label: `tag ${w.n}`, color: '#0EA5E9' }, { label: 'second', color: '#84CC16' }] }
        : { visibility: w.pick(['workspace', 'public', 'private']) };
      await w.call('PUT', `/modules/${s.mod._id}`, body);
      return true;
    }],
  ];
}

export function archiveKinds(w: WriterTools): Kind[] {
  const observed = w.dialect === 'observed';
  return [
    [3, 'archive a record', async (s) => {
      const parents = s.tops.filter((r) => s.subs.some((x) => x.parentRecord === r._id));
      const r = w.pick(parents.length && w.chance(0.5) ? parents : s.tops);
      if (!r || s.tops.length < 2) return false;
      // observed: DELETE archives the record and its sub-records; PUT archives the record only
      if (observed && w.chance(0.5)) await w.call('DELETE', `/records/${r._id}`);
      else await w.call('PUT', `/records/${r._id}`, { isArchived: true });
      return true;
    }],
    [2.5, 'archive a sub-record', async (s) => {
      const x = w.pick(s.subs);
      if (!x) return false;
      await w.call('PUT', `/records/${x._id}`, { isArchived: true });
      return true;
    }],
    [1, 'delete a record (spec: gone, its sub-records archived)', async (s) => {
      const r = w.pick(s.tops);
      if (!r || observed || s.tops.length < 2) return false;
      await w.call('DELETE', `/records/${r._id}`);
      return true;
    }],
    [1.5, 'reply on an archived record', async (s) => {
      const archived = new Set([...s.archivedTops, ...s.archivedSubs].map((r) => r._id));
      const root = w.pick(s.amendments.filter((a) => !a.parentComment && archived.has(a.record)));
      if (!root) return false;
      // replies set no automation off (root amendments do: amendment_posted)
      await w.call('POST', `/amendments/${root.record}`, { message: `reply while archived ${w.n}`, parentComment: root._id });
      return true;
    }],
    [1, 'cell on an archived record (observed: POST on an existing pair, no automations)', async (s) => {
      if (!observed) return false;
      const archived = new Set([...s.archivedTops, ...s.archivedSubs].map((r) => r._id));
      const v = w.pick(s.values.filter((x) => archived.has(x.record)));
      const col = v && s.cols.find((c) => c._id === v.column);
      const rec = v && s.d.records.find((r) => r._id === v.record);
      const value = col && validValue(w, s, col);
      if (!v || !col || !rec || value === undefined) return false;
      await w.postValue(rec, col, value);
      return true;
    }],
    [0.5, 'un-archive a record', async (s) => {
      const r = w.pick(s.archivedTops);
      if (!r) return false;
      await w.call('PUT', `/records/${r._id}`, { isArchived: false });
      return true;
    }],
  ];
}

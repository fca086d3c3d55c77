import { describe, expect, it } from 'vitest';
import { ERASED_MARKER, emptyErasedSet, judge, learnFrom, type ErasedSet, type PersonText } from './erasure-filter.js';

const U = 'user0002';
const grace = { _id: U, email: 'grace@acme.example', firstName: 'Grace', lastName: 'Hopper' };
const userSet = (): ErasedSet => ({ ...emptyErasedSet(), users: new Set([U]) });

function people(): Map<string, PersonText> {
  const p = new Map<string, PersonText>();
  learnFrom('member', { workspaceId: 'w', userId: U, firstName: 'Grace', lastName: 'Hopper', email: 'grace@acme.example', raw: { user: grace } }, new Set([U]), p);
  learnFrom('amendment', { id: 'a1', userId: U, message: 'Checked: 12% discount is the floor.', raw: { user: grace } }, new Set([U]), p);
  return p;
}

describe('judge: a person', () => {
  it('drops their membership and grants', () => {
    expect(judge('member', { workspaceId: 'w', userId: U, raw: {} }, userSet(), people())).toEqual({ action: 'drop' });
    expect(judge('moduleAccess', { workspaceId: 'w', userId: U, moduleId: 'm', raw: {} }, userSet(), people())).toEqual({ action: 'drop' });
    expect(judge('member', { workspaceId: 'w', userId: 'other001', raw: {} }, userSet(), people())).toEqual({ action: 'keep' });
  });

  it("replaces their amendments' text by the marker and cuts their summary to the id; the thread stays", () => {
    const v = judge('amendment', { id: 'a1', recordId: 'r', parentId: 'a0', userId: U, message: 'Checked: 12% discount is the floor.', raw: { message: 'Checked: 12% discount is the floor.', parentComment: 'a0', user: grace } }, userSet(), people());
    expect(v).toEqual({ action: 'scrub', entity: { id: 'a1', recordId: 'r', parentId: 'a0', userId: U, message: ERASED_MARKER, raw: { message: ERASED_MARKER, parentComment: 'a0', user: { _id: U } } } });
  });

  it('takes @-mentions of them out of other people’s amendments', () => {
    const v = judge('amendment', { id: 'a2', userId: 'other001', message: 'Globex wants it. @Grace can you check?', raw: { message: 'Globex wants it. @Grace can you check?' } }, userSet(), people());
    expect(v.action === 'scrub' && v.entity.message).toBe(`Globex wants it. @${ERASED_MARKER} can you check?`);
    expect(v.action === 'scrub' && (v.entity.raw as { message: string }).message).toBe(`Globex wants it. @${ERASED_MARKER} can you check?`);
  });

  it('removes their id from person cells (JSON in text) and their name/email from activity', () => {
    const cell = judge('cell', { id: 'c', recordId: 'r', value: JSON.stringify(['other001', U]), raw: { value: JSON.stringify(['other001', U]), createdBy: U } }, userSet(), people());
    expect(cell).toEqual({ action: 'scrub', entity: { id: 'c', recordId: 'r', value: '["other001"]', raw: { value: '["other001"]', createdBy: U } } });
    const act = judge('activity', { id: 'x', userId: 'other001', action: 'module_access_changed', message: 'set board access of grace@acme.example to 0 board(s)', targetName: 'grace@acme.example', before: null, after: null, raw: { user: { _id: 'other001', firstName: 'Ada' }, triggeredBy: grace } }, userSet(), people());
    expect(act.action).toBe('scrub');
    const e = (act as { entity: Record<string, unknown> }).entity;
    expect(e.message).toBe(`set board access of ${ERASED_MARKER} to 0 board(s)`);
    expect(e.targetName).toBe(ERASED_MARKER);
    expect(e.raw).toEqual({ user: { _id: 'other001', firstName: 'Ada' }, triggeredBy: { _id: U } });
  });

  it('blanks the text their comment activity quotes', () => {
    const v = judge('activity', { id: 'x', userId: U, action: 'comment_added', message: 'replied', before: null, after: '"Checked: 12% discount is the floor."', raw: { after: 'Checked: 12% discount is the floor.', user: grace } }, userSet(), people());
    const e = (v as { entity: Record<string, unknown> }).entity;
    expect(e.after).toBe(JSON.stringify(ERASED_MARKER));
    expect((e.raw as Record<string, unknown>).after).toBe(ERASED_MARKER);
  });

  it('is idempotent: a scrubbed entity judged again is kept as it is', () => {
    const once = judge('activity', { id: 'x', userId: U, action: 'comment_added', message: 'replied', after: '"hi"', raw: { after: 'hi', user: grace } }, userSet(), people());
    expect(once.action).toBe('scrub');
    expect(judge('activity', (once as { entity: object }).entity, userSet(), people())).toEqual({ action: 'keep' });
  });
});

describe('judge: records and modules', () => {
  const set: ErasedSet = { users: new Set(), records: new Set(['rec00001', 'sub00001']), modules: new Set(['mod00001']), amendments: new Set(['am000001']) };
  const none = new Map<string, PersonText>();
  it('drops the record, what hangs off it, and what lives in an erased module', () => {
    expect(judge('record', { id: 'rec00001', moduleId: 'm', raw: {} }, set, none).action).toBe('drop');
    expect(judge('record', { id: 'new00001', parentRecordId: 'rec00001', moduleId: 'm', raw: {} }, set, none).action).toBe('drop');
    expect(judge('cell', { id: 'c', recordId: 'sub00001', raw: {} }, set, none).action).toBe('drop');
    expect(judge('amendment', { id: 'x', recordId: 'rec00001', raw: {} }, set, none).action).toBe('drop');
    expect(judge('activity', { id: 'x', recordId: 'rec00001', raw: {} }, set, none).action).toBe('drop');
    expect(judge('column', { id: 'x', moduleId: 'mod00001', raw: {} }, set, none).action).toBe('drop');
    expect(judge('module', { id: 'mod00001', raw: {} }, set, none).action).toBe('drop');
    expect(judge('record', { id: 'other001', moduleId: 'm', raw: { name: 'x' } }, set, none)).toEqual({ action: 'keep' });
  });

  it('takes the record out of other records’ relation cells and resolved references', () => {
    const cell = judge('cell', { id: 'c', recordId: 'other001', value: '["rec00001","keep0001"]', raw: { value: '["rec00001","keep0001"]' } }, set, none);
    expect(cell.action === 'scrub' && cell.entity.value).toBe('["keep0001"]');
    const ref = judge('reference', { moduleId: 'm', recordId: 'other001', columnId: 'k', items: [{ recordId: 'rec00001', name: 'Globex' }, { recordId: 'keep0001', name: 'Hooli' }], display: '1, 2', raw: { items: [{ recordId: 'rec00001', name: 'Globex' }, { recordId: 'keep0001', name: 'Hooli' }] } }, set, none);
    expect(ref.action === 'scrub' && ref.entity.items).toEqual([{ recordId: 'keep0001', name: 'Hooli' }]);
    expect(JSON.stringify(ref)).not.toContain('Globex');
  });
});

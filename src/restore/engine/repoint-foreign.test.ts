import { describe, expect, it } from 'vitest';
import { automation, col } from '../fixtures.test-helpers.js';
import { acrossInvocations, planForeignRepoint, repointReport, type ForeignObjects, type Repointed } from './repoint-foreign.js';

// Module "m2" (Roadmap) names module "m1"'s column k-stage and collection c-won; the workspace's
// recipe names c-won too.
const foreign: ForeignObjects = {
  modules: [{ id: 'm2', name: 'Roadmap' }],
  columns: [
    col('r-rel', 'Customer', { moduleId: 'm2', type: 'relation', settings: { targetModule: 'm1', displayField: 'k-value' } }),
    col('r-ref', 'Customer stage', { moduleId: 'm2', type: 'reference', position: 6, settings: { via: 'r-rel', field: 'k-stage', aggregate: 'list' } }),
    col('r-plain', 'Effort', { moduleId: 'm2' }),
  ],
  automations: [
    automation('a-mod', 'Follow-up', { moduleId: 'm2', actions: [{ type: 'create_record', targetModule: 'm1', targetCollection: 'c-won' }] }),
    automation('a-ws', 'Flag', { moduleId: null, scope: 'workspace', conditions: [{ source: 'record', field: 'collection', op: 'is', value: 'c-won' }] }),
    automation('a-dead', 'Old', { moduleId: 'm2', actions: [{ type: 'move_to_collection', collectionName: 'c-gone' }] }),
    automation('a-none', 'Other', { moduleId: 'm2' }),
  ],
  unread: [],
};

describe('re-pointing what other modules hold', () => {
  it('steps for each column and automation naming what the run makes, their owners named; what names a dead id is declared', () => {
    const p = planForeignRepoint({ foreign, made: new Set(['m1', 'k-stage', 'k-value', 'c-won']), dead: new Map([['c-gone', 'collection "Lost"']]), subject: 'module Sales', deadAdvice: 'edit it' });
    expect(p.repoint.map((r) => [r.entity, r.id, r.names, r.owner?.name])).toEqual([
      ['column', 'r-rel', ['m1', 'k-value'], 'Roadmap'],
      ['column', 'r-ref', ['k-stage'], 'Roadmap'],
      ['automation', 'a-mod', ['m1', 'c-won'], 'Roadmap'],
      ['automation', 'a-ws', ['c-won'], 'the workspace'],
    ]);
    const [rel, ref] = p.columns as Extract<(typeof p.columns)[number], { op: 'repointColumn' }>[];
    // another module's column: its module is live; a relation column is never made anew
    expect(rel).toMatchObject({ op: 'repointColumn', foreign: true, module: 'm2', target: 'r-rel', inPlaceOnly: expect.stringContaining('point column Customer at module Sales again by hand') });
    expect(ref!.inPlaceOnly).toBeUndefined();
    expect(ref!.then).toMatchObject({ position: 6, width: 180 });
    expect(p.automations).toEqual([
      { op: 'repointAutomation', key: 'repoint-automation:a-mod', target: 'a-mod', scope: 'module', owner: 'm2', refs: ['m1', 'c-won'], label: 'Roadmap › Follow-up' },
      { op: 'repointAutomation', key: 'repoint-automation:a-ws', target: 'a-ws', scope: 'workspace', owner: 'ws', refs: ['c-won'], label: 'the workspace › Flag' },
    ]);
    expect(p.notRestored).toEqual([{ entity: 'automation', id: 'a-dead', label: 'Roadmap › Old', reason: expect.stringContaining('names collection "Lost" (c-gone) of module Sales') }]);
  });

  it('the report says how each column went once run: in place, made anew, or declared', () => {
    const p = planForeignRepoint({ foreign, made: new Set(['m1', 'k-stage', 'k-value']), dead: new Map(), subject: 'module Sales', deadAdvice: '' });
    expect(repointReport(p.repoint, null).columns.map((c) => c.how)).toEqual(['pending', 'pending']);
    const ran = repointReport(p.repoint, { newId: (id) => (id === 'r-ref' ? 'NEW' : undefined), isRefused: (id) => id === 'r-rel' });
    expect(ran.columns.map((c) => [c.id, c.how, c.newId])).toEqual([['r-rel', 'not re-pointed', null], ['r-ref', 'recreated', 'NEW']]);
  });

  it('a resumed run reports the first invocation\'s list and what its own plan adds; a finished or absent earlier run adds nothing', () => {
    const a: Repointed = { entity: 'automation', id: 'a1', name: 'A', names: ['x'] };
    const c: Repointed = { entity: 'column', id: 'c1', name: 'C', names: ['y'] };
    const now: Repointed = { entity: 'automation', id: 'a1', name: 'A', names: ['x'] };
    expect(acrossInvocations([now], { status: 'failed', options: { repoint: [a, c] } })).toEqual([a, c]);
    expect(acrossInvocations([now], { status: 'complete', options: { repoint: [a, c] } })).toEqual([now]);
    expect(acrossInvocations([now], { status: 'running', options: {} })).toEqual([now]);
    expect(acrossInvocations([now], null)).toEqual([now]);
    // after a run, a column neither mapped nor refused was re-pointed in place by the killed part
    expect(repointReport([c], { newId: () => undefined, isRefused: () => false }).columns[0]).toMatchObject({ how: 're-pointed', newId: 'c1' });
  });
});

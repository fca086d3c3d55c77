// What the other modules and the workspace hold that names Sales Pipeline (demo seed), for the
// re-pointing tests of restore module: Product Roadmap's automation creating a deal in Qualified
// when an item is completed, and two workspace recipes (one on, one off) whose condition names the
// collection Proposal. (Roadmap's Customer, Customer value and Customer stage columns are the seed's.)

import { dumpOf } from './harness.js';
import { call, type Board } from './rollback-kit.js';

export interface Others {
  roadmap: string;
  roadmapAuto: string;
  wsOn: string;
  wsOff: string;
}

export async function nameSalesFromOthers(x: Omit<Board, 'good' | 's1'>): Promise<Others> {
  const roadmap = dumpOf(x.h.emu).modules.find((m) => m.name === 'Product Roadmap' && !m.isDeleted)!._id as string;
  const roadmapAuto = (
    await call(x.h, 'POST', `/automations/${roadmap}`, {
      name: 'Shipped → follow-up deal',
      trigger: { type: 'record_completed' },
      conditions: [],
      match: 'all',
      actions: [{ type: 'create_record', targetModule: x.mod, targetCollection: x.coll('Qualified'), value: 'Follow-up deal' }],
    }, 'automation')
  )._id as string;
  const flag = (name: string, isActive: boolean) => ({
    name,
    trigger: { type: 'column_changed_to', columnName: 'Stage', value: 'Lost' },
    conditions: [{ source: 'record', field: 'collection', op: 'is', value: x.coll('Proposal') }],
    match: 'all',
    actions: [{ type: 'rename_record', value: 'LOST: {{name}}' }],
    isActive,
  });
  const wsOn = (await call(x.h, 'POST', `/automations/workspace/${x.ws}`, flag('Lost proposals are flagged', true), 'automation'))._id as string;
  const wsOff = (await call(x.h, 'POST', `/automations/workspace/${x.ws}`, flag('Parked flag', false), 'automation'))._id as string;
  return { roadmap, roadmapAuto, wsOn, wsOff };
}

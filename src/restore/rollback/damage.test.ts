import { describe, expect, it } from 'vitest';
import type { Activity } from '../../domain/entities.js';
import { feedVerdicts, pinnedVerdict, touchedByPin } from './damage.js';

let n = 0;
function row(userId: string, recordId: string, at: string, columnId = 'status'): Activity {
  return { id: `a${++n}`, workspaceId: 'w', action: 'cell_updated', message: null, targetName: null, moduleId: 'm', collectionId: null, recordId, columnId, userId, automationId: null, before: null, after: null, createdAt: at, raw: {} };
}
const T = (s: number): string => `2026-11-24T09:00:${String(s).padStart(2, '0')}.000Z`;

describe('feedVerdicts', () => {
  // A overwrites r1..r3 at 10–12 s; B fixes r2 at 15 s (same pass window); C edits r3 at 40 s (later)
  const rows = [row('A', 'r1', T(10)), row('A', 'r2', T(11)), row('A', 'r3', T(12)), row('B', 'r2', T(15)), row('C', 'r3', T(40)), row('D', 'r9', T(20)), row('A', 'r0', T(1))];
  const pin = { incident: 4, actors: ['A'], from: T(10), to: T(12) };

  it('pinned: only cells whose every write since the snapshot is the damage; a fix and a later edit are kept', () => {
    const v = feedVerdicts(rows, 'm', T(5), pin, (w) => `member ${w}`);
    expect([...v.damaged]).toEqual(['r1|status']);
    expect(Object.fromEntries(v.later)).toEqual({
      'r2|status': `edited after the damage of incident 4: by member B at ${T(15)}`,
      'r3|status': `edited after the damage of incident 4: by member C at ${T(40)}`,
    });
    // r9 (someone else's unrelated cell) and r0 (before the snapshot) are not part of the damage
    expect([...touchedByPin(v).cells].sort()).toEqual(['r1|status', 'r2|status', 'r3|status']);
  });

  it('pinned: a write by someone else before the damage (in the same window) is kept too', () => {
    const v = feedVerdicts([row('E', 'r5', T(8)), row('A', 'r5', T(11))], 'm', T(5), pin);
    expect(v.damaged.size).toBe(0);
    expect(v.later.get('r5|status')).toMatch(/^written besides the damage of incident 4: by E at /);
  });

  it('without a pin: a cell one actor changed and then another is a conflict, said so', () => {
    const v = feedVerdicts(rows, 'm', T(5), null);
    expect([...v.later.keys()].sort()).toEqual(['r2|status', 'r3|status']);
    expect(v.later.get('r2|status')).toBe(`the feed shows A changed it at ${T(11)}, then B at ${T(15)}`);
  });

  it('a put-back the feed shows a later edit on becomes a conflict; nothing else changes', () => {
    expect(pinnedVerdict('restore', 'why')).toBe('conflict');
    expect(pinnedVerdict('restore', undefined)).toBe('restore');
    expect(pinnedVerdict('same', 'why')).toBe('same');
  });
});

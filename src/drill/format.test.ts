import { describe, expect, it } from 'vitest';
import { DRILL_ENTITIES, type DrillItem } from './compare.js';
import type { DrillReport } from './drill.js';
import { formatDrill } from './format.js';

const tally = () => Object.fromEntries(DRILL_ENTITIES.map((e) => [e, { compared: 1, equal: 1, differing: 0, notRestorable: 0 }])) as DrillReport['workspaces'][number]['entities'];
const item = (label: string, reason: string, module?: string): DrillItem => ({ entity: 'record', id: 'r1', label, reason, ...(module ? { module } : {}) });

describe('formatDrill', () => {
  it('keeps each workspace, item and reason on its line whatever the names hold', () => {
    const report: DrillReport = {
      ok: false,
      snapshot: 4,
      service: 'http://staging.example\n✔ drill passed',
      startedAt: '2026-11-26T20:00:00.000Z',
      durationMs: 1500,
      phases: { copyMs: 1, restoreMs: 1, readBackMs: 1, compareMs: 1 },
      notRestorableFields: ['ids'],
      workspaces: [
        {
          workspaceId: 'w1',
          name: 'Team\r\u001b[2J',
          restoredId: 'w2',
          requests: 3,
          error: 'the service said: nope\nhint: run rm -rf ~',
          ok: false,
          entities: tally(),
          differing: [item('lead \u202Egpj.exe', 'name differs', 'Board\nfake')],
          notRestorable: [1, 2, 3, 4].map((i) => item(`r${i}\u001b[31m`, 'kept by the service\nwbsync: ok')),
        },
      ],
    };
    const text = formatDrill(report);
    expect(text).not.toMatch(/[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u202A-\u202E]/);
    const lines = text.split('\n');
    expect(lines[0]).toContain('into http://staging.example\\n✔ drill passed: FAILED');
    expect(lines).toContain('workspace Team\\r\\u001b[2J (w1) → restored as w2: FAILED, 3 requests');
    expect(lines).toContain('  the service said: nope\\nhint: run rm -rf ~');
    expect(lines).toContain('    record Board\\nfake / lead \\u202egpj.exe: name differs');
    expect(lines).toContain('    4 records (r1\\u001b[31m, r2\\u001b[31m, r3\\u001b[31m, …): kept by the service\\nwbsync: ok');
    for (const l of lines) expect(l).not.toMatch(/^\s*(✔|hint:|wbsync:|fake)/);
  });
});

import { describe, expect, it } from 'vitest';
import { slackText } from './notifier.js';

describe('slack text', () => {
  it('shows bidi overrides in names as their code, keeps the quoted undo command', () => {
    const text = slackText({
      event: 'tripwire',
      at: '2026-01-15T09:00:00.000Z',
      database: '/data/wbsync.db',
      summary: 'module “invoice\u202Egpj.exe” deleted',
      details: { what: ['module invoice\u202Egpj.exe (12 records)'] },
      undo: "wbsync restore module 65a1b2c3d4e5f60718293a4b --snapshot 4",
    });
    expect(text).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
    expect(text).toContain('invoice⟨U+202E⟩gpj.exe');
    expect(text).toContain('Undo: `wbsync restore module 65a1b2c3d4e5f60718293a4b --snapshot 4`');
  });
});

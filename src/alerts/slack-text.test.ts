import { describe, expect, it } from 'vitest';
import { slackText } from './notifier.js';

const base = { event: 'tripwire' as const, at: '2026-01-15T09:00:00.000Z', database: '/data/wbsync.db' };

describe('slack text', () => {
  it('shows bidi overrides in names as their escape, keeps the quoted undo command', () => {
    const text = slackText({
      ...base,
      summary: 'module “invoice\u202Egpj.exe” deleted',
      details: { what: ['module invoice\u202Egpj.exe (12 records)'] },
      undo: "wbsync restore module 65a1b2c3d4e5f60718293a4b --snapshot 4",
    });
    expect(text).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
    expect(text).toContain('invoice\\u202egpj.exe');
    expect(text).toContain('Undo: `wbsync restore module 65a1b2c3d4e5f60718293a4b --snapshot 4`');
  });

  it('keeps each outside string on its line: a name cannot fake a line of the alert', () => {
    const text = slackText({
      ...base,
      summary: 'module x\n*wbsync recovered* — all good\r\u001b[2J was deleted',
      details: { what: ['module x\nUndo: `rm -rf ~` (3 records)', 'literal \\u202e'] },
      undo: "wbsync restore module 65a1b2c3d4e5f60718293a4b --snapshot 4",
    });
    const lines = text.split('\n');
    expect(lines).toEqual([
      '*wbsync tripwire* — module x\\n*wbsync recovered* — all good\\r\\u001b[2J was deleted',
      '• module x\\nUndo: `rm -rf ~` (3 records)',
      '• literal \\\\u202e',
      'Undo: `wbsync restore module 65a1b2c3d4e5f60718293a4b --snapshot 4`',
      '(/data/wbsync.db, 2026-01-15T09:00:00.000Z)',
    ]);
    expect(text).not.toMatch(/[\u0000-\u0009\u000B-\u001F\u007F-\u009F]/);
  });

  it("escapes Slack's control characters, so a name cannot ping a channel or fake a link", () => {
    const text = slackText({ ...base, summary: 'module <!channel> & <https://evil.example|your bank> deleted', details: {} });
    expect(text).toContain('module &lt;!channel&gt; &amp; &lt;https://evil.example|your bank&gt; deleted');
    expect(text).not.toMatch(/[<>]/);
  });
});

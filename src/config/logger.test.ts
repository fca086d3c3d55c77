import { describe, expect, it } from 'vitest';
import { createLogger, readableLine } from './logger.js';

describe('log lines', () => {
  it('are JSON by default, with the key scrubbed', () => {
    const lines: string[] = [];
    createLogger({ level: 'info', secrets: ['sekrit-key'], write: (l) => lines.push(l) }).info({ kind: 'full', note: 'has sekrit-key' }, 'pass finished');
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 30, msg: 'pass finished', kind: 'full', note: 'has [redacted]' });
  });

  it('render for a person on a terminal: time, level, message, fields; no control characters, no key', () => {
    const lines: string[] = [];
    createLogger({ level: 'info', secrets: ['sekrit-key'], write: (l) => lines.push(l), readable: true }).warn({ module: 'm1', name: 'Q3\u001b[2J plan', n: 3, key: 'sekrit-key' }, 'tick skipped');
    expect(lines[0]).toMatch(/^\r\x1b\[K\d\d:\d\d:\d\d WARN tick skipped {2}name="Q3\\u001b\[2J plan" module=m1 n=3 key=\[redacted\]\n$/);
    expect(readableLine('not json\n')).toBe('not json\n');
  });

  it('keep a message on its line and tell a literal escape from a hidden character', () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'info', write: (l) => lines.push(l), readable: true });
    log.warn({ module: 'invoice\u202Egpj', other: 'invoice\\u202egpj' }, 'module x\n14:02:07 INFO restore complete\r\u001b[2J deleted');
    const line = lines[0]!.replace(/^\r\x1b\[K/, '');
    expect(line.split('\n')).toHaveLength(2); // the line and its end
    expect(line).toContain('WARN module x\\n14:02:07 INFO restore complete\\r\\u001b[2J deleted');
    expect(line).toContain('module="invoice\\u202egpj" other="invoice\\\\u202egpj"');
    expect(line).not.toMatch(/[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u202A-\u202E]/);
  });
});
